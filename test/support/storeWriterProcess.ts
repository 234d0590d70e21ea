// A separate Node process writing to one store folder, as a second VS Code window would. Forked by
// test/integration/storeProcesses.integration.test.ts: it receives a WriterJob, opens the store, says 'ready', waits
// for 'go' (so every writer starts together), and reports over IPC what it wrote and what is on disk.
import { nodeStoreFileSystem, type StoreFileSystem } from '../../src/core/store/storeFileSystem';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { StoreReport } from '../../src/core/store/types';

export type WriterJob =
  | {
      kind: 'interleave';
      dir: string;
      name: string;
      rounds: number;
      /** A memory every this many rounds. */
      memoryEvery: number;
      flushDelayMs: number;
      pollIntervalMs: number;
    }
  | {
      kind: 'flushLoop';
      dir: string;
      name: string;
      rowsPerFlush: number;
      contentBytes: number;
      /** Once `pauseAfterRows` rows are written, stop inside the flush at this step, say so, and wait to be killed. */
      pauseAt?: FlushStep;
      pauseAfterRows?: number;
    };

/** Points inside a flush: the lease file created, the temp file written (not renamed), the rename done (lease held). */
export type FlushStep = 'lease' | 'temp' | 'rename';

export type WriterMessage =
  | { kind: 'ready' }
  | { kind: 'report'; report: StoreReport }
  /** About to flush; every row up to `rows` is in the journal or on disk. */
  | { kind: 'flushing'; rows: number }
  /** A flush resolved: the first `rows` rows are on disk. */
  | { kind: 'flushed'; rows: number }
  /** Stopped inside a flush at `step`, with `rows` rows written. */
  | { kind: 'inside'; step: FlushStep; rows: number }
  | { kind: 'done'; logRows: number; memories: number }
  | { kind: 'failed'; message: string };

function send(message: WriterMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('not forked with an IPC channel'));
    process.send(message, (err: Error | null) => (err ? reject(err) : resolve()));
  });
}

function nextMessage(): Promise<unknown> {
  return new Promise((resolve) => process.once('message', resolve));
}

async function openStore(dir: string, extra: { flushDelayMs?: number; pollIntervalMs?: number; fs?: StoreFileSystem }): Promise<SqlJsStore> {
  return SqlJsStore.open({
    dir,
    pruneLog: false,
    leaseStaleMs: 2_000,
    onReport: (report) => void send({ kind: 'report', report }).catch(() => undefined),
    ...extra,
  });
}

// Writes log rows, state and memories in rounds, flushing at random moments so that flushes of the processes
// overlap; at the end it settles every log row and edits every memory through the ids it was handed, which must
// still reach its own rows after replays moved them.
async function interleave(job: Extract<WriterJob, { kind: 'interleave' }>): Promise<void> {
  const store = await openStore(job.dir, { flushDelayMs: job.flushDelayMs, pollIntervalMs: job.pollIntervalMs });
  await send({ kind: 'ready' });
  await nextMessage();
  const logIds: number[] = [];
  const memoryIds: number[] = [];
  for (let round = 0; round < job.rounds; round++) {
    logIds.push(store.appendLog({ role: 'user', content: `${job.name}-${round}`, source: job.name, status: 'pending' }));
    store.setState(`${job.name}-last`, String(round));
    if (round % job.memoryEvery === 0) memoryIds.push(store.addMemory('fact', `${job.name} fact ${round}`, 'user').memory.id);
    if (round % 4 === 1) store.updateLog(logIds[round - 1], { status: 'complete' });
    const pick = Math.random();
    if (pick < 0.2) await store.flush();
    else if (pick < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
    else await new Promise((resolve) => setImmediate(resolve));
  }
  for (const id of logIds) store.updateLog(id, { status: 'complete' });
  for (const [i, id] of memoryIds.entries()) {
    if (!store.updateMemory(id, `${job.name} fact ${i * job.memoryEvery} (edited)`)) throw new Error(`memory #${id} of ${job.name} is gone`);
  }
  await store.close();
  await send({ kind: 'done', logRows: logIds.length, memories: memoryIds.length });
}

// Appends rows and flushes, forever, telling the parent before and after each flush; the parent kills it.
async function flushLoop(job: Extract<WriterJob, { kind: 'flushLoop' }>): Promise<void> {
  let rows = 0;
  // The real file system, except that at the chosen step of a late enough flush it stops for good (until killed).
  const pause = async (step: FlushStep): Promise<void> => {
    if (step !== job.pauseAt || rows < (job.pauseAfterRows ?? Infinity)) return;
    await send({ kind: 'inside', step, rows });
    await new Promise(() => undefined);
  };
  const fs: StoreFileSystem = {
    ...nodeStoreFileSystem,
    async createFile(path, data, durable) {
      await nodeStoreFileSystem.createFile(path, data, durable);
      await pause(path.endsWith('.lease') ? 'lease' : 'temp');
    },
    async rename(from, to) {
      await nodeStoreFileSystem.rename(from, to);
      if (from.includes('.tmp-')) await pause('rename');
    },
  };
  const store = await openStore(job.dir, { flushDelayMs: 60_000, pollIntervalMs: 0, fs });
  await send({ kind: 'ready' });
  await nextMessage();
  const filler = 'x'.repeat(job.contentBytes);
  for (;;) {
    for (let i = 0; i < job.rowsPerFlush; i++) {
      store.appendLog({ role: 'assistant', content: `${job.name}-${rows++} ${filler}`, source: job.name, status: 'complete' });
    }
    await send({ kind: 'flushing', rows });
    await store.flush();
    await send({ kind: 'flushed', rows });
  }
}

async function main(): Promise<void> {
  const job = (await nextMessage()) as WriterJob;
  if (job.kind === 'interleave') await interleave(job);
  else await flushLoop(job);
}

main().then(
  () => process.disconnect?.(),
  async (err: unknown) => {
    await send({ kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }).catch(() => undefined);
    process.exit(1);
  },
);
