// The router's classifier: a short-lived session on the fast model, separate from the
// orchestrator's, so its question and answer never enter the conversation.
import type { AgentSessions } from '../copilot/agentSessions';
import type { CallUsage } from '../copilot/callUsage';
import { TurnTimeoutError } from '../copilot/errors';
import type { Logger } from '../util/logger';
import { CLASSIFIER_PROMPT, parseTier, type RoutingSettings, type Tier } from './router';

export interface ClassifierOptions {
  sessions: AgentSessions;
  logger: Logger;
  classifierTimeoutMs?: number;
  /** Its model call's usage: a request billed like any other (the turn it routes counts it). */
  onUsage?: (usage: CallUsage) => void;
}

/** A short-lived session on the fast model labels the message; on timeout or failure the tier stays. */
export async function classifyMessage(prompt: string, routing: RoutingSettings, opts: ClassifierOptions): Promise<Tier | undefined> {
  const session = await opts.sessions.create({ role: 'classifier', model: routing.tiers.fast });
  try {
    const reply = await session.run(`${CLASSIFIER_PROMPT}${prompt.slice(0, 2000)}`, {
      signal: new AbortController().signal,
      timeoutMs: opts.classifierTimeoutMs ?? 8000,
      ...(opts.onUsage ? { onUsage: opts.onUsage } : {}),
    });
    return parseTier(reply.text);
  } catch (err) {
    const why = err instanceof TurnTimeoutError ? 'timed out' : err instanceof Error ? err.message : String(err);
    opts.logger.warn(`Classifier gave no answer (${why}); keeping the tier`);
    return undefined;
  } finally {
    await session.disconnect();
    void opts.sessions.delete(session.id).catch(() => undefined);
  }
}
