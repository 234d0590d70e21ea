// A month of use in one run: 1,000 orchestrator turns (each with a tool call) and 200 worker tasks (each a tool
// round trip, its result answered by the orchestrator), scripted, on Baton as the extension builds it. What must
// not grow: the extension host's heap, the runtime's memory, the time of a turn, Baton's session folders, the store.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startCore } from '../test/support/orchestratorFixture';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';
import { sampleRss } from './workers.bench';

const TURNS = 1000;
const TASKS = 200;
const COMPACT_EVERY = 100;
const MB = 1024 * 1024;

/** A collection the heap figures can rely on (the bench runs without --expose-gc). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * The heap of Baton alone: the scripted server (the model's stand-in, in this process) records every request with
 * its whole conversation, and the fixture every event; both are test instruments, emptied before each reading.
 */
async function heapUsed(server: ScriptedModelServer, events: unknown[]): Promise<number> {
  server.requests.length = 0;
  events.length = 0;
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().heapUsed;
}

export async function benchSoak({ turns = TURNS, tasks: taskCount = TASKS } = {}): Promise<BenchFigure[]> {
  const server = await ScriptedModelServer.start();
  const core = await startCore({ server, flushDelayMs: 250 });
  try {
    const project = join(core.home, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'README.md'), '# soak\n');
    core.workerSettings.timeoutMs = 120_000;
    // The orchestrator: every turn calls a tool (recall), then answers.
    server.always(
      { lastUserIncludes: 'SOAK turn', afterToolResult: false, systemIncludes: 'You are Baton' },
      { toolCalls: [{ name: 'recall', arguments: { keyword: 'soak' } }] },
    );
    server.always(
      { lastUserIncludes: 'SOAK turn', afterToolResult: true, systemIncludes: 'You are Baton' },
      { text: 'Nothing remembered about that yet.', chunks: 3 },
    );
    // A worker: reads a file, then reports; its result is answered by the orchestrator.
    server.always(
      { lastUserIncludes: 'SOAK task', afterToolResult: false },
      { toolCalls: [{ name: 'view', arguments: { path: join(project, 'README.md') } }] },
    );
    server.always({ lastUserIncludes: 'SOAK task', afterToolResult: true }, { text: 'Read the README. Nothing to change.', chunks: 3 });
    server.always({ lastUserIncludes: '[Background task completed]' }, { text: 'Noted.' });
    // Compaction's summary request (the runtime asks for one; its prompt says so).
    server.always(
      { predicate: (r) => /summar/i.test(JSON.stringify(r.messages.at(-1)?.content ?? '')) },
      { text: '<overview>Soak turns about soak.</overview>' },
    );

    const times: number[] = [];
    let tasks = 0;
    let named = 0;
    const turn = async (i: number): Promise<void> => {
      const t = performance.now();
      await core.orchestrator.enqueue(`SOAK turn ${i}: anything about soak?`, { channel: 'panel' }).done;
      times.push(performance.now() - t);
    };
    const startTask = async (): Promise<void> => {
      while (core.pool.listActive().length >= 4) await new Promise((r) => setTimeout(r, 5));
      tasks++;
      named++;
      await core.pool.create({ name: `soak-${named}`, workingDir: project, prompt: `SOAK task ${named}: read the README` });
    };
    const settle = async (): Promise<void> => {
      while (core.pool.listActive().length || core.orchestrator.busy) await new Promise((r) => setTimeout(r, 10));
    };

    const perTask = Math.max(1, Math.floor(turns / taskCount));
    // Warm-up (not counted), a tenth of the run: the runtime's and this process's memory grow to a plateau over the
    // first sessions (JIT, caches, module loading); what must not happen is growth after that.
    for (let i = 0; i < Math.max(20, turns / 10); i++) {
      if (i % perTask === 0) await startTask();
      await turn(-1 - i);
    }
    await settle();
    await core.orchestrator.compact();
    tasks = 0;
    times.length = 0;
    const heapBefore = await heapUsed(server, core.events);
    const rssBefore = await sampleRss([core.sessions.runtimePid()!]);

    for (let i = 0; i < turns; i++) {
      if (i % perTask === 0 && tasks < taskCount) await startTask();
      await turn(i);
      // The instruments' own records (see heapUsed) would otherwise grow with the run.
      if (i % 50 === 49) server.requests.length = core.events.length = 0;
      // The runtime compacts a real conversation by itself once it nears the model's context window; these scripted
      // messages are too small to get there in 1,000 turns, so the conversation is compacted as a user's /compact does.
      if (i % COMPACT_EVERY === COMPACT_EVERY - 1) await core.orchestrator.compact();
    }
    await settle();
    const heapAfter = await heapUsed(server, core.events);
    const rssAfter = await sampleRss([core.sessions.runtimePid()!]);
    await core.store.flush();

    const sessionsDir = join(core.storageDir, 'copilot-sessions', 'session-state');
    const folders = existsSync(sessionsDir) ? readdirSync(sessionsDir).length : 0;
    const storeBytes = statSync(join(core.storageDir, 'baton.sqlite')).size;
    const first = median(times.slice(0, 100));
    const last = median(times.slice(-100));
    const failed = core.events.filter((e) => e.type === 'turn.failed').length;
    if (failed) throw new Error(`${failed} soak turn(s) failed`);
    return [
      {
        name: `soak: ${turns} turns + ${tasks} worker tasks, extension-host heap after / before`,
        value: heapAfter / heapBefore,
        unit: '×',
        target: '≤ 1.2',
      },
      { name: 'soak: extension-host heap before → after', value: (heapAfter - heapBefore) / MB, unit: 'MB grown' },
      { name: 'soak: runtime RSS after / before', value: rssAfter / rssBefore, unit: '×', target: '≤ 1.3' },
      { name: 'soak: runtime RSS after', value: rssAfter / MB, unit: 'MB' },
      { name: 'soak: median turn, last 100 / first 100', value: last / first, unit: '×', target: '≤ 1.1' },
      { name: 'soak: median turn, first 100', value: first, unit: 'ms' },
      { name: "soak: Baton's session folders at the end", value: folders, unit: 'folders', target: '≤ 5' },
      { name: 'soak: store file at the end', value: storeBytes / MB, unit: 'MB', target: '≤ 5' },
    ];
  } finally {
    await core.dispose();
    await server.close();
  }
}
