// A session Baton resumes answers to Baton's permission handler alone. The runtime keeps a session's permission mode
// in its saved state: a Copilot CLI session the user switched to allow-all (`/allow-all`, `--yolo`) is still allow-all
// when Baton attaches or forks it, and the runtime then approves every tool by itself (measured, runtime 1.0.85: a
// worker attached to such a session read ~/.ssh/id_rsa with the sandbox off, and nobody was asked). Session-scoped
// approvals the user gave there go as well; the user's approvals saved for a folder (their CLI's) are left alone.
import type { CopilotSession } from '@github/copilot-sdk';
import { AgentError } from './errors';

export async function handlerOnly(session: CopilotSession): Promise<void> {
  const permissions = session.rpc.permissions;
  // setMode answers with the mode in force after it (the runtime's own word, no second call needed).
  const { mode } = await permissions.setMode({ mode: 'manual' });
  await permissions.setApproveAll({ enabled: false });
  await permissions.resetSessionApprovals({ includeLocation: false });
  if (mode !== 'manual') throw new AgentError('fatal', `the session stayed in the runtime's "${mode}" permission mode`);
}
