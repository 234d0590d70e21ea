// skill_search: the installed skills, plus a skill index the user configured (baton.skills.indexUrl). Baton knows
// no index of its own: with none configured, or one that cannot be reached, the answer says so plainly.
import { z } from 'zod';
import type { SkillInfo } from './skillLibrary';

export interface IndexedSkill {
  name: string;
  description: string;
  /** What skill_install takes: a git URL or a folder. */
  source: string;
}

export type IndexResult = { kind: 'none' } | { kind: 'ok'; url: string; skills: IndexedSkill[] } | { kind: 'unreachable'; url: string; reason: string };

const entry = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  source: z.string().optional(),
  url: z.string().optional(),
  repo: z.string().optional(),
});
const indexSchema = z.union([z.array(entry), z.object({ skills: z.array(entry) })]);

/** Fetches and filters the configured index; never throws. */
export async function searchIndex(indexUrl: string | undefined, query: string, fetchImpl: typeof fetch = fetch, timeoutMs = 8000): Promise<IndexResult> {
  const url = indexUrl?.trim();
  if (!url) return { kind: 'none' };
  try {
    const res = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (!res.ok) return { kind: 'unreachable', url, reason: `HTTP ${res.status}` };
    const parsed = indexSchema.safeParse(await res.json());
    if (!parsed.success) return { kind: 'unreachable', url, reason: 'the answer is not a skill index (a JSON list of {name, description, source})' };
    const list = Array.isArray(parsed.data) ? parsed.data : parsed.data.skills;
    const skills = list
      .map((s) => ({ name: s.name, description: s.description ?? '', source: s.source ?? s.url ?? s.repo ?? '' }))
      .filter((s) => s.source && matches(`${s.name} ${s.description}`, query));
    return { kind: 'ok', url, skills: skills.slice(0, 20) };
  } catch (err) {
    const reason =
      err instanceof Error
        ? err.name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000}s`
          : err.cause instanceof Error
            ? err.cause.message
            : err.message
        : String(err);
    return { kind: 'unreachable', url, reason };
  }
}

export function matches(text: string, query: string): boolean {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const hay = text.toLowerCase();
  return words.length === 0 || words.some((w) => hay.includes(w));
}

export function formatSearch(query: string, installed: SkillInfo[], index: IndexResult): string {
  const mine = installed.filter((s) => matches(`${s.name} ${s.description}`, query));
  const lines = [
    mine.length
      ? `Installed skills matching "${query}":\n${mine.map((s) => `- ${s.name}: ${s.description}`).join('\n')}`
      : `No installed skill matches "${query}".`,
  ];
  switch (index.kind) {
    case 'none':
      lines.push(
        'No skill index is configured (setting baton.skills.indexUrl), so only installed skills were searched. Install one from a git URL or a folder with skill_install.',
      );
      break;
    case 'unreachable':
      lines.push(`The skill index ${index.url} could not be reached (${index.reason}); only installed skills were searched.`);
      break;
    case 'ok':
      lines.push(
        index.skills.length
          ? `From the skill index (${index.url}):\n${index.skills.map((s) => `- ${s.name}: ${s.description} — install with skill_install(source: "${s.source}")`).join('\n')}`
          : `The skill index (${index.url}) has nothing matching "${query}".`,
      );
      break;
  }
  return lines.join('\n\n');
}
