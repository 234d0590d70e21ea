// A new session opened ahead of its first message, the way a resumed one is opened. The runtime makes a session's MCP
// host (which connects its MCP servers, the built-in GitHub one among them, and lists their tools) at a new session's
// first send, and at a resumed session's resume; nothing else makes it (docs/performance.md ³ lists what was tried). So a session
// opened when the panel is opened is suspended while still empty (the runtime then keeps it for a resume, though, as
// any empty session, not across its own restart) and resumed by its id at once: warmUp can then build its tool list,
// and the first send connects nothing. What the session holds and what its first request carries are the same (measured
// against the scripted server: the same system message and tools, no model request); its event log has a session.resume
// more.
import type { CopilotClient, CopilotSession, SessionConfig } from '@github/copilot-sdk';

/**
 * `session` (just created, nothing sent) reopened as a resumed session; undefined when the runtime would not suspend
 * it, and `session` is then still the live one. Rejects when the resume failed after the suspend: `session` is gone.
 */
export async function openAhead(client: CopilotClient, session: CopilotSession, config: SessionConfig): Promise<CopilotSession | undefined> {
  const suspended = await session.rpc.suspend().then(
    () => true,
    () => false,
  );
  if (!suspended) return undefined;
  // The SDK's registry now maps the id to the resumed object; the suspended one is let go with nothing listening.
  return client.resumeSession(session.sessionId, config);
}
