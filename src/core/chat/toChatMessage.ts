// Turns a stored log row (and its JSON meta) into the message the chat panel shows.
import type { ChatMessage, RouteInfo, UsageInfo, WorkerResultCard } from '../../shared/protocol';
import { storedReferencesOf } from '../context/references';
import type { ReadableError } from '../copilot/errors';
import type { WindowStamp } from '../orchestrator/conversationClaims';
import { windowMeta } from '../orchestrator/sharedConversation';
import { parseLogMeta } from '../store/logMeta';
import type { LogEntry } from '../store/types';
import type { Queued } from './queuedRows';

export interface LogMeta {
  references?: unknown;
  route?: RouteInfo;
  usage?: UsageInfo;
  error?: ReadableError;
  workerResult?: WorkerResultCard;
}

export function parseMeta(raw: string | null): LogMeta {
  return parseLogMeta(raw) as LogMeta;
}

/**
 * A log row as the panel shows it; `self` is this window, so a row another window wrote is marked with its name.
 * `queued`: a message, or a worker's result, still waiting in a queue ("Queued"; yours can be removed when it waits in
 * this window's, `here`). The row cannot say so itself: the message being answered is 'pending' too (queuedRows.ts).
 */
export function toChatMessage(entry: LogEntry, self?: WindowStamp, queued?: Queued): ChatMessage {
  const meta = parseMeta(entry.meta);
  const ts = Date.parse(entry.ts.includes('T') ? entry.ts : `${entry.ts.replace(' ', 'T')}Z`) || Date.now();
  const writer = self ? windowMeta(entry.meta).window : undefined;
  const from = writer && writer.key !== self?.key ? { from: writer.label } : {};
  const base = { id: `log-${entry.id}`, content: entry.content, source: entry.source, ts, ...from };
  const waits = queued === 'elsewhere' ? { queuedElsewhere: true as const } : {};
  if (entry.role === 'user') {
    const references = storedReferencesOf(meta);
    const status = queued ? 'pending' : entry.status === 'interrupted' ? 'interrupted' : 'complete';
    return { ...base, role: 'user', status, ...waits, ...(references.length ? { references } : {}) };
  }
  if (entry.role === 'system') {
    const workerResult = meta.workerResult && typeof meta.workerResult.report === 'string' ? { workerResult: meta.workerResult } : {};
    const status = queued ? 'pending' : 'complete';
    return { ...base, role: entry.source.startsWith('background') ? 'background' : 'system', status, ...waits, ...workerResult };
  }
  if (entry.status === 'failed') return { ...base, role: 'error', status: 'failed', ...(meta.error?.action ? { action: meta.error.action } : {}) };
  return {
    ...base,
    role: 'assistant',
    status: entry.status === 'partial' ? 'partial' : entry.status === 'cancelled' ? 'cancelled' : 'complete',
    ...(meta.route ? { route: meta.route } : {}),
    ...(meta.usage && (meta.usage.inputTokens || meta.usage.outputTokens) ? { usage: meta.usage } : {}),
  };
}
