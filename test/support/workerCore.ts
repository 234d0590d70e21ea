// The worker integration suites' shared fixture: a core built as the extension builds it (startCore), a project folder
// in its home, the store's writes recorded, the pool's card changes collected, and the results the pool handed to the
// orchestrator read from its events. Registers the suite's beforeEach/afterEach; call it inside `describe`.
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BatonTool } from '../../src/core/copilot/batonTool';
import type { ToolInvocation, ToolResultObject } from '../../src/core/copilot/sdkTypes';
import type { Origin, OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { WorkerInfo } from '../../src/core/workers/workerPool';
import { afterEachCore } from './afterEachCore';
import type { CopilotClientInstance } from './copilotHarness';
import { startCore, type CoreFixture } from './orchestratorFixture';
import { recordWrites, type RecordingStore } from './recordingStore';
import type { RecordedRequest } from './scriptedModelServer';
import { waitFor } from './waitFor';

export interface WorkerCore {
  core: CoreFixture;
  store: RecordingStore<CoreFixture['store']>;
  home: string;
  /** `~/dev/app`, created empty. */
  project: string;
  /** Every list of cards the pool announced, in order. */
  changes: WorkerInfo[][];
  /** Clients a test starts beside the core (the user's own CLI): stopped before the core is disposed. */
  extraClients: CopilotClientInstance[];
  /** Results the pool handed to the orchestrator: background turns queued, in order. */
  delivered(): Array<{ text: string; origin: Origin }>;
  /** Background turns that have ended, answered or failed. */
  backgroundDone(): number;
  /** The orchestrator's answers to the next results of `worker`: one scripted reply per result. */
  answerResults(worker: string, ...replies: string[]): void;
}

/**
 * `inPlace`: workers work in the project folder itself (baton.workers.isolation "none"), for suites about a worker's
 * life and guards; where a worker works (a worktree, a copy of a folder without git) is the isolation suites' subject.
 */
export function useWorkerCore(opts: { inPlace?: boolean } = {}): WorkerCore {
  const w = { changes: [], extraClients: [] as CopilotClientInstance[] } as unknown as WorkerCore;
  w.delivered = () =>
    w.core.events
      .filter((e): e is Extract<OrchestratorEvent, { type: 'turn.queued' }> => e.type === 'turn.queued' && e.origin.channel === 'background')
      .map((e) => ({ text: e.prompt, origin: e.origin }));
  w.backgroundDone = () => w.core.events.filter((e) => (e.type === 'turn.completed' || e.type === 'turn.failed') && e.origin.channel === 'background').length;
  w.answerResults = (worker, ...replies) => {
    w.core.server.on({ lastUserIncludes: `[Background task completed] Worker '${worker}'`, name: `result of ${worker}` }, ...replies.map((text) => ({ text })));
  };

  beforeEach(async () => {
    w.core = await startCore();
    if (opts.inPlace) w.core.workerSettings.isolation = 'none';
    w.store = recordWrites(w.core.store);
    w.home = w.core.home;
    w.project = join(w.home, 'dev', 'app');
    await mkdir(w.project, { recursive: true });
    await mkdir(join(w.home, '.ssh'), { recursive: true });
    const changes: WorkerInfo[][] = (w.changes = []);
    w.core.pool.onDidChange((cards) => changes.push(cards));
  });

  afterEachCore(() => w.core, {
    // Every background turn the pool started has been answered before the script is checked.
    settle: () => waitFor('the background turns', () => w.backgroundDone() >= w.delivered().length),
    beforeDispose: async () => {
      for (const c of w.extraClients.splice(0)) await c.stop().catch(() => c.forceStop());
    },
  });
  return w;
}

/** The tool results a request carried back to the model, as text. */
export function toolMessages(req: RecordedRequest): string[] {
  return req.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

/** Calls one of Baton's tools as the runtime would. */
export async function callTool(tools: BatonTool[], name: string, args: unknown): Promise<string | ToolResultObject> {
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool?.handler, `tool ${name}`);
  const invocation: ToolInvocation = { sessionId: 's', toolCallId: `c-${name}`, toolName: name, arguments: args };
  return (await tool.handler(args, invocation)) as string | ToolResultObject;
}
