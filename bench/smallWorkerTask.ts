// The worker task the five-workers figure times (workers.bench.ts) and its trace replays (traceWorkers.ts): a tool
// round trip (read a file) then a streamed summary, with model latency; each result, handed to the orchestrator as a
// turn, is answered at once. One script, so the trace measures the bench's own tasks.
import { join } from 'node:path';
import type { ScriptedModelServer } from '../test/support/scriptedModelServer';

/** Scripts every task whose prompt says TASK, in `project` (which holds a README.md). */
export function scriptSmallWorkerTask(server: Pick<ScriptedModelServer, 'always'>, project: string): void {
  server.always(
    { lastUserIncludes: 'TASK', afterToolResult: false },
    { toolCalls: [{ name: 'view', arguments: { path: join(project, 'README.md') } }], delayMs: 150 },
  );
  server.always(
    { lastUserIncludes: 'TASK', afterToolResult: true },
    { text: 'Read the README.\nNothing to change.', delayMs: 150, chunks: 5, chunkDelayMs: 20 },
  );
  server.always({ lastUserIncludes: '[Background task completed]' }, { text: 'Noted.' });
}
