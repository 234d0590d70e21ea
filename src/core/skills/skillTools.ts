// Skill tools under both names the user may know: Max's list_skills / learn_skill / uninstall_skill and IO's
// skill_list / skill_install / skill_remove / skill_search. An install or removal takes effect from the next
// session (the runtime reads skill folders when a session is created), so `changed` asks for a fresh one.
// A skill is standing instructions for every session, fetched from anywhere: the user says yes to each install and
// removal first (a model steered by what it read must not plant one).
import { z } from 'zod';
import { type BatonTool, type ToolJournal, ToolFailure, toolMaker } from '../copilot/batonTool';
import type { SkillInfo, SkillLibrary } from './skillLibrary';
import { formatSearch, searchIndex } from './skillSearch';

export interface SkillToolOptions {
  journal?: ToolJournal;
  /** baton.skills.indexUrl, read at each search. */
  indexUrl: () => string | undefined;
  /** Skills changed: the next turn should run in a session that knows them. */
  changed: () => void;
  /** Asks the user (the panel's prompt); false: they said no. */
  confirm: (kind: 'install a skill' | 'remove a skill', detail: string) => Promise<boolean>;
  fetchImpl?: typeof fetch;
}

const source = z
  .string()
  .trim()
  .min(1)
  .max(1000)
  .describe('A git URL (https://…, git@host:path) or an absolute folder path (a git repository is cloned, any other folder copied).');
const name = z.string().trim().min(1).max(64).describe('The skill\u2019s name, as skill_list shows it.');

export function createSkillTools(library: SkillLibrary, opts: SkillToolOptions): BatonTool[] {
  const tool = toolMaker(opts.journal);
  const list = async () => formatList(await library.list(), library.dir);
  const installArgs = z.object({
    source,
    subpath: z.string().trim().min(1).max(300).optional().describe('A folder inside the repository that holds the skill(s).'),
    name: z.string().trim().min(1).max(64).optional().describe('Install under this name (one skill only).'),
  });
  const install = async (a: z.output<typeof installArgs>) => {
    await library.checkSource(a.source, { subpath: a.subpath, name: a.name });
    const what = `${a.source}${a.subpath ? ` (${a.subpath})` : ''}${a.name ? ` as '${a.name}'` : ''}`;
    if (!(await opts.confirm('install a skill', `install the skill from ${what} for every session`))) {
      throw new ToolFailure(`The user did not approve installing the skill from ${what}. Do not retry; ask them.`);
    }
    const done = await library.install(a.source, { subpath: a.subpath, name: a.name });
    opts.changed();
    return `Installed ${done.map((s) => `'${s.name}'${s.description ? ` (${s.description})` : ''}${s.replaced ? ', in place of the one installed before' : ''}`).join(', ')} into ${library.dir}. It is available from the next message on, to me and to every worker.`;
  };
  const remove = async (a: { name: string }) => {
    // One that is not installed is said so by remove, without asking.
    if ((await library.has(a.name)) && !(await opts.confirm('remove a skill', `remove the skill '${a.name}'`))) {
      throw new ToolFailure(`The user did not approve removing the skill '${a.name}'. Do not retry; ask them.`);
    }
    await library.remove(a.name);
    opts.changed();
    return `Removed skill '${a.name}'. From the next message on, no session loads it.`;
  };
  const listDescription = 'List the skills installed in Baton (each a folder with a SKILL.md) that every session loads.';
  const installDescription = 'Install a skill (a folder with a SKILL.md) from a git repository or a local folder, for the orchestrator and every worker.';
  const removeDescription = 'Remove an installed skill.';
  return [
    tool('skill_list', listDescription, z.object({}), list),
    tool('list_skills', listDescription, z.object({}), list),
    tool('skill_install', installDescription, installArgs, install, true),
    tool('learn_skill', installDescription, installArgs, install, true),
    tool('skill_remove', removeDescription, z.object({ name }), remove, true),
    tool('uninstall_skill', removeDescription, z.object({ name }), remove, true),
    tool(
      'skill_search',
      'Search skills: the installed ones, and the skill index the user configured (baton.skills.indexUrl), if any. Says so when the index cannot be reached.',
      z.object({ query: z.string().trim().min(1).max(200) }),
      async (a) => formatSearch(a.query, await library.list(), await searchIndex(opts.indexUrl(), a.query, opts.fetchImpl)),
    ),
  ];
}

function formatList(skills: SkillInfo[], dir: string): string {
  if (!skills.length) return `No skills installed (${dir}). Install one with skill_install from a git URL or a folder.`;
  return [`${skills.length} skill(s) installed in ${dir}:`, ...skills.map((s) => `- ${s.name}: ${s.description || '(no description)'}`)].join('\n');
}
