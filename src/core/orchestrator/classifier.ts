// The router's classifier: a short-lived session on the fast model, separate from the
// orchestrator's, so its question and answer never enter the conversation.
import type { SessionConfig } from '@github/copilot-sdk';
import type { CopilotRuntime } from '../copilot/copilotRuntime';
import { withTimeout } from '../util/delay';
import type { Logger } from '../util/logger';
import { disconnectQuietly } from './disconnect';
import { CLASSIFIER_PROMPT, parseTier, type RoutingSettings, type Tier } from './router';

export interface ClassifierOptions {
  runtime: CopilotRuntime;
  logger: Logger;
  sessionDirectory?: string;
  extraSessionConfig?: Partial<SessionConfig>;
  classifierTimeoutMs?: number;
}

/** A short-lived session on the fast model labels the message; on timeout the tier stays. */
export async function classifyMessage(prompt: string, routing: RoutingSettings, opts: ClassifierOptions): Promise<Tier | undefined> {
  const client = await opts.runtime.client();
  const provider = opts.runtime.sessionProvider();
  const session = await client.createSession({
    clientName: 'baton-classifier',
    model: routing.tiers.fast,
    streaming: false,
    availableTools: [],
    systemMessage: { mode: 'replace', content: 'You label messages for model routing. Answer with one word.' },
    onPermissionRequest: () => ({ kind: 'reject' }),
    ...(opts.sessionDirectory ? { configDirectory: opts.sessionDirectory } : {}),
    ...(provider ? { provider } : {}),
    ...opts.extraSessionConfig,
  } as SessionConfig);
  try {
    const reply = await withTimeout(session.sendAndWait({ prompt: `${CLASSIFIER_PROMPT}${prompt.slice(0, 2000)}` }, opts.classifierTimeoutMs ?? 8000), opts.classifierTimeoutMs ?? 8000, 'classifier timed out');
    return parseTier(reply?.data.content ?? '');
  } catch (err) {
    opts.logger.warn(`Classifier gave no answer (${err instanceof Error ? err.message : String(err)}); keeping the tier`);
    await session.abort().catch(() => undefined);
    return undefined;
  } finally {
    const id = session.sessionId;
    await disconnectQuietly(session);
    void client.deleteSession(id).catch(() => undefined);
  }
}
