// What opening the chat panel sets going: the runtime starts, Baton finds out whether it can answer (the setup hint),
// and the orchestrator's session is created or resumed, so the first message waits for neither (no model request).
// The extension calls it when the view opens; the bench calls it too, to measure the first reply after opening.
import type { AgentSessions } from '../copilot/agentSessions';
import type { Orchestrator } from '../orchestrator/orchestrator';
import type { Logger } from '../util/logger';
import type { ChatController } from './chatController';

export const SIGN_IN_HINT = 'Baton needs GitHub Copilot: sign in with GitHub, or use another provider (baton.provider settings).';

export async function panelOpened(core: { sessions: AgentSessions; chat: ChatController; orchestrator: Orchestrator }, logger: Logger): Promise<void> {
  try {
    await core.sessions.start();
  } catch (err) {
    core.chat.setSetupHint(`The Copilot runtime did not start: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const auth = core.sessions.provider.type === 'copilot' ? await core.sessions.authStatus().catch(() => undefined) : undefined;
  const signedOut = auth !== undefined && !auth.authenticated;
  core.chat.setSetupHint(signedOut ? SIGN_IN_HINT : undefined);
  if (signedOut) return;
  await core.orchestrator.prewarm().catch((err: unknown) => logger.warn(`Preparing the session failed: ${err instanceof Error ? err.message : String(err)}`));
}
