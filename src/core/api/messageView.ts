// A conversation's messages as the public API gives them (api/baton.d.ts BatonMessage): what the panel shows, in
// the API's words. A worker's result is its report and its facts; the wrapper the model was given never leaves here.
import type { BatonChannel, BatonMessage } from '../../../api/baton';
import type { ChatMessage } from '../../shared/protocol';

const ROLE: Record<ChatMessage['role'], BatonMessage['role']> = {
  user: 'user',
  assistant: 'assistant',
  background: 'worker',
  system: 'notice',
  error: 'error',
};

const CHANNELS: ReadonlySet<string> = new Set<BatonChannel>(['panel', 'command', 'chat', 'tool', 'api', 'background']);

/** A log source ("chat", "background:builder") as the API's channel; rows of older versions are the panel's. */
function channelOf(source: string | undefined): BatonChannel {
  const channel = source?.split(':')[0] ?? 'panel';
  return CHANNELS.has(channel) ? (channel as BatonChannel) : 'panel';
}

export function toBatonMessage(m: ChatMessage): BatonMessage {
  const status = m.status === 'pending' ? 'queued' : m.status;
  const r = m.workerResult;
  return {
    id: m.id,
    role: ROLE[m.role],
    channel: channelOf(m.source),
    text: r ? r.report : m.content,
    status,
    at: new Date(m.ts).toISOString(),
    ...(r
      ? {
          worker: {
            name: r.worker,
            state: r.state,
            durationMs: r.durationMs,
            ...(r.changes ? { changes: { ...r.changes } } : {}),
            ...(r.reason ? { reason: r.reason } : {}),
          },
        }
      : {}),
  };
}
