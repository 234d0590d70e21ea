// Baton's summarize policy (after Warlock's `summarize: { afterTurns, keep }`): once a conversation has settled more
// than `afterTurns` turns since its last compaction, its older messages are summarized and the `keep` most recent
// stay verbatim. The runtime's own compaction (history.compact) decides by itself what it keeps, so it cannot keep
// exactly `keep` messages: Baton summarizes on a one-off session and starts the conversation's next session from the
// summary and the kept messages. The log keeps every message: only what the model carries shrinks.
import type { AgentSessions } from '../copilot/agentSessions';
import type { CallUsage } from '../copilot/callUsage';
import type { LogEntry } from '../store/types';
import type { RoutingSettings } from './router';
import type { Compaction } from './events';

export interface SummarizePolicy {
  /** Compact once more than this many turns settled since the last compaction; 0: never on its own. */
  afterTurns: number;
  /** Messages kept verbatim (the most recent). */
  keep: number;
}

export const DEFAULT_SUMMARIZE: SummarizePolicy = { afterTurns: 0, keep: 8 };

/** Where a conversation's last compaction left off (CompactionMark, per conversation: conversationStateKey). */
export const STATE_COMPACTION_MARK = 'compaction_mark';

/** Where a conversation's last compaction left off (saved in the store's state). */
export interface CompactionMark {
  summary: string;
  /** The checkpoint turn index it happened after. */
  atTurn: number;
  /** The newest log row the summary covers. */
  throughLogId: number;
}

const MESSAGE_CHARS = 4000;
/**
 * A summary's length kept, whatever the model wrote (it is asked for 200 words, some 1,300 characters): it rides on
 * the next session's first prompt, on every recovery's, and into the next summary's request.
 */
export const SUMMARY_CHARS = 8000;

/** A policy from settings or a caller: whole numbers, afterTurns ≥ 0, keep ≥ 1; anything else falls back. */
export function parseSummarizePolicy(raw: unknown, fallback: SummarizePolicy = DEFAULT_SUMMARIZE): SummarizePolicy {
  const r = (raw ?? {}) as Partial<Record<keyof SummarizePolicy, unknown>>;
  const whole = (v: unknown, min: number, d: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= min ? v : d);
  return { afterTurns: whole(r.afterTurns, 0, fallback.afterTurns), keep: whole(r.keep, 1, fallback.keep) };
}

export function parseMark(raw: string | undefined): CompactionMark | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as CompactionMark;
    return typeof v.summary === 'string' && Number.isInteger(v.atTurn) && Number.isInteger(v.throughLogId) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The conversation's messages as the model saw them, oldest first: settled user and assistant rows, and the worker
 * reports (system rows from a background worker) its session was given. A report set aside 'cancelled' never reached
 * the session (it comes again from the inbox), so it is no part of what the model knows.
 */
export function settledMessages(log: readonly LogEntry[]): LogEntry[] {
  return log.filter((e) => e.status !== 'pending' && e.status !== 'interrupted' && e.content && (e.role !== 'system' || isReport(e)));
}

/** A worker's report: what the session was given for it (SessionKeeper.recoveryTurns passes these on too). */
function isReport(e: LogEntry): boolean {
  return e.role === 'system' && e.source.startsWith('background') && e.status !== 'cancelled';
}

/** One message as the summarizer and the next session read it (text for the model, never shown to a person). */
function line(e: LogEntry): string {
  const who = e.role === 'user' ? 'User' : e.role === 'assistant' ? 'Assistant' : `Worker report [${e.source}]`;
  return `${who}: ${e.content.length > MESSAGE_CHARS ? `${e.content.slice(0, MESSAGE_CHARS)}…` : e.content}`;
}

/** The summarizer's request: the previous summary (if any) and the messages to fold into it. Text for the model. */
export function summaryRequest(previous: string | undefined, older: readonly LogEntry[]): string {
  return [
    'Summarize this conversation so far in at most 200 words.',
    ...(previous ? ['', 'Summary of what came before:', previous] : []),
    '',
    'Messages:',
    ...older.map(line),
  ].join('\n');
}

/** What the conversation's next session starts from: the summary, then the kept messages verbatim. Text for the model. */
export function compactedContext(summary: string, kept: readonly LogEntry[]): string {
  return [
    '[System: conversation compacted] Earlier turns of this conversation were summarized to save context:',
    summary,
    '',
    'The most recent messages, verbatim (do NOT respond to them, just absorb the context):',
    ...kept.map(line),
    '',
    '(End of context. Answer only the message that follows.)',
  ].join('\n');
}

/** The model a summary is asked of: the fast tier's when routing is automatic, else the configured one. */
export function summaryModel(routing: RoutingSettings): string {
  return routing.auto ? routing.tiers.fast : routing.model;
}

/** Summarizes `older` on a one-off session (never part of the conversation) on `model`; `onUsage`: its request's usage. */
export async function summarize(
  sessions: AgentSessions,
  model: string,
  request: string,
  timeoutMs: number,
  onUsage?: (usage: CallUsage) => void,
): Promise<string> {
  const session = await sessions.create({ role: 'summarizer', model });
  try {
    const reply = await session.run(request, { signal: new AbortController().signal, timeoutMs, ...(onUsage ? { onUsage } : {}) });
    const summary = reply.text.trim();
    return summary.length > SUMMARY_CHARS ? `${summary.slice(0, SUMMARY_CHARS - 1)}…` : summary;
  } finally {
    await session.disconnect();
    void sessions.delete(session.id).catch(() => undefined);
  }
}

/**
 * What to fold for `messages` (oldest first) keeping the newest `keep`: the messages after the last compaction's and
 * before the kept ones. Undefined when there is nothing new to fold.
 */
export function planCompaction(
  messages: readonly LogEntry[],
  keep: number,
  mark: CompactionMark | undefined,
): { older: LogEntry[]; kept: LogEntry[]; from: number; to: number } | undefined {
  const cut = Math.max(0, messages.length - keep);
  const from = mark ? messages.findIndex((m) => m.id > mark.throughLogId) : 0;
  if (from < 0 || from >= cut) return undefined;
  return { older: messages.slice(from, cut), kept: messages.slice(cut), from, to: cut - 1 };
}

export function compactionOf(summary: string, previous: string | undefined, plan: NonNullable<ReturnType<typeof planCompaction>>): Compaction {
  const replacedChars = (previous?.length ?? 0) + plan.older.reduce((n, e) => n + Math.min(e.content.length, MESSAGE_CHARS), 0);
  return {
    summary,
    replacesFromIndex: plan.from,
    replacesToIndex: plan.to,
    kept: plan.kept.length,
    tokensFreed: Math.max(0, Math.round((replacedChars - summary.length) / 4)),
    how: 'baton',
  };
}
