// A conversation as one Markdown document, for people: Baton: Open Conversation as Markdown puts it in an editor to
// save, search or share. It holds what the panel shows, said the way the panel says it: a finished worker is its
// result (name, how it ended, its report), never the wrapper the model was given; a reply is its Markdown as written.
import type { ChatMessage } from '../../shared/protocol';
import { changesText, durationText, END_LABEL } from '../../shared/workerResultText';

const AUTHOR: Record<ChatMessage['role'], string> = {
  user: 'You',
  assistant: 'Baton',
  background: 'Background result',
  system: 'Notice',
  error: 'Error',
};

const STATUS_NOTE: Partial<Record<ChatMessage['status'], string>> = {
  streaming: 'answering',
  partial: 'partial answer',
  cancelled: 'stopped',
  failed: 'failed',
  pending: 'queued',
  interrupted: 'interrupted by a reload',
};

/** "2026-11-29 07:31", in the local time zone (the editor's reader is the person who asked). */
function timeText(ts: number): string {
  const d = new Date(ts);
  if (!Number.isFinite(d.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** A message's heading: who, through what, when, and how it ended when that is not simply complete. */
function heading(m: ChatMessage): string {
  const who = m.workerResult ? `Worker ${m.workerResult.worker}` : AUTHOR[m.role];
  const parts = [who];
  if (m.source && m.role !== 'background' && m.source !== 'panel' && m.source !== 'palette') parts.push(`via ${m.source}`);
  if (m.from) parts.push(`from window ${m.from}`);
  const time = timeText(m.ts);
  if (time) parts.push(time);
  const note = STATUS_NOTE[m.status];
  if (note && m.role !== 'error') parts.push(note);
  return `### ${parts.join(' · ')}`;
}

/**
 * `text` with a code fence it leaves open closed: a reply stopped inside a code block would otherwise take every
 * message after it into that block. A fence closes with at least as many of the same character (CommonMark).
 */
export function closeFences(text: string): string {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!fence) continue;
    if (!open) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined;
  }
  return open ? `${text}\n${open}` : text;
}

function body(m: ChatMessage): string {
  const r = m.workerResult;
  if (r) {
    const facts = [END_LABEL[r.state], durationText(r.durationMs), changesText(r.changes)].join(' · ');
    return [`*${facts}*`, r.reason ?? '', closeFences(r.report)].filter(Boolean).join('\n\n');
  }
  const refs = m.references?.length ? `*With: ${m.references.map((x) => `${x.path ?? x.label}${x.lines ? `:${x.lines}` : ''}`).join(', ')}*` : '';
  return [refs, closeFences(m.content.trimEnd())].filter(Boolean).join('\n\n');
}

/** The conversation `title` and its `messages` (oldest first) as a Markdown document. */
export function conversationMarkdown(title: string, messages: readonly ChatMessage[]): string {
  const count = `${messages.length} message${messages.length === 1 ? '' : 's'}`;
  const head = `# ${title.replace(/\s+/g, ' ').trim() || 'New conversation'}\n\n*A Baton conversation, ${count}.*`;
  return `${[head, ...messages.map((m) => `${heading(m)}\n\n${body(m)}`)].join('\n\n---\n\n')}\n`;
}
