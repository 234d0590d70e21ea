// The user's own Copilot CLI sessions on the machine, as the Copilot Sessions view finds them: made by a real CLI
// client in the worker core's Copilot home, each answered once (its task scripted) and let go. Tests of attaching and
// forking start from these.
import type { CopilotSession } from './copilotHarness';
import { CopilotClient, runTurn } from './copilotHarness';
import type { WorkerCore } from './workerCore';

/** One session per task, in order; `prepare` runs on each before its turn (a mode the user set, say). */
export async function userCliSessions(fx: WorkerCore, tasks: readonly string[], prepare?: (s: CopilotSession) => Promise<void>): Promise<string[]> {
  const env = fx.core.env;
  const cli = new CopilotClient({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: fx.project, logLevel: 'error' });
  fx.extraClients.push(cli);
  await cli.start();
  const ids: string[] = [];
  for (const task of tasks) {
    fx.core.server.on({ lastUserIncludes: task, name: task }, { text: `${task} done` });
    const s = await cli.createSession({ workingDirectory: fx.project, streaming: true, onPermissionRequest: () => ({ kind: 'approve-once' }) });
    await prepare?.(s);
    await runTurn(s, task);
    await s.disconnect();
    ids.push(s.sessionId);
  }
  return ids;
}
