// The store's cost where users could feel it: what a logged turn costs the extension host, how long a flush takes
// as the database grows, and how long opening a large file takes. Real sql.js, real files in a temp folder.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_BYTES_KEEP } from '../src/core/store/bounds';
import { loadSqlJs } from '../src/core/store/loadSqlJs';
import { SqlJsStore, type FlushStats } from '../src/core/store/sqlJsStore';
import { median, type BenchFigure } from './figure';

export const TEXT = 'The auth service validates the JWT, then looks the session up in Redis; expiry is checked twice. '.repeat(2); // ~200 chars

export async function withDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-bench-store-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A store holding `rows` log rows (pruning off, so the benchmark can go past 200). */
export async function seeded(dir: string, rows: number, content = TEXT, onFlush?: (f: FlushStats) => void): Promise<SqlJsStore> {
  const store = await SqlJsStore.open({ dir, pruneLog: false, pollIntervalMs: 0, flushDelayMs: 60_000, onReport: () => undefined, onFlush });
  for (let i = 0; i < rows; i++) store.appendLog({ role: i % 2 ? 'assistant' : 'user', content, source: 'panel', status: 'complete' });
  await store.flush();
  return store;
}

// One turn as the orchestrator logs it: the user's side (pending), the reply, then the user's side settled.
function logTurn(store: SqlJsStore): void {
  const id = store.appendLog({ role: 'user', content: 'Fix the JWT expiry bug in the auth service', source: 'panel', status: 'pending' });
  store.appendLog({ role: 'assistant', content: TEXT, source: 'panel', status: 'complete', meta: '{"route":{"tier":"fast"}}' });
  store.updateLog(id, { status: 'complete' });
}

/**
 * Turns are seconds apart and the flush is debounced by 250 ms, so in practice every turn pays one whole flush: that is
 * the worst case of the amortisation, and what is measured (medians of `turns`).
 */
async function flushedTurns(store: SqlJsStore, flushes: FlushStats[], turns: number): Promise<{ blocking: number; wall: number }> {
  const blocking: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < turns; i++) {
    flushes.length = 0;
    const t0 = performance.now();
    logTurn(store);
    const writes = performance.now() - t0;
    await store.flush();
    wall.push(performance.now() - t0);
    blocking.push(writes + flushes.reduce((sum, f) => sum + f.blockingMs, 0));
  }
  return { blocking: median(blocking), wall: median(wall) };
}

export async function benchStore(opts: { quick: boolean }): Promise<BenchFigure[]> {
  await loadSqlJs(); // compiling the wasm is a once-per-process cost, not part of any figure below
  const figures: BenchFigure[] = [];

  await withDir(async (dir) => {
    const flushes: FlushStats[] = [];
    const store = await seeded(dir, 10_000, TEXT, (f) => flushes.push(f));
    const turns = opts.quick ? 100 : 500;
    const sync: number[] = [];
    for (let i = 0; i < turns; i++) {
      const t0 = performance.now();
      logTurn(store);
      sync.push(performance.now() - t0);
    }
    await store.flush();
    figures.push({ name: 'logged turn: its 3 writes, synchronous (10 k rows)', value: median(sync), unit: 'ms' });

    const { blocking, wall } = await flushedTurns(store, flushes, opts.quick ? 15 : 50);
    figures.push({ name: 'logged turn + its flush, host thread blocked (10 k rows)', value: blocking, unit: 'ms', target: '≤ 5' });
    figures.push({ name: 'logged turn + its flush, wall incl. fsync off-thread (10 k rows)', value: wall, unit: 'ms' });
    await store.close();
  });

  // The log at its bound (LOG_BYTES_KEEP of text) in messages of a realistic length, 1 KB. The whole file is exported
  // at each flush, so this is what the bound leaves a turn paying at most.
  await withDir(async (dir) => {
    const flushes: FlushStats[] = [];
    const message = TEXT.repeat(5);
    const store = await seeded(dir, Math.floor(LOG_BYTES_KEEP / message.length), message, (f) => flushes.push(f));
    const size = (await stat(store.path)).size / 2 ** 20;
    const { blocking, wall } = await flushedTurns(store, flushes, opts.quick ? 5 : 15);
    const at = `the log at its bound (${LOG_BYTES_KEEP / 2 ** 20} MB of text in 1 KB messages, a ${size.toFixed(0)} MB file)`;
    figures.push({ name: `logged turn + its flush, host thread blocked, ${at}`, value: blocking, unit: 'ms' });
    figures.push({ name: `logged turn + its flush, wall, ${at}`, value: wall, unit: 'ms' });
    await store.close();
  });

  for (const rows of opts.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
    await withDir(async (dir) => {
      const flushes: FlushStats[] = [];
      const store = await seeded(dir, rows, TEXT, (f) => flushes.push(f));
      const size = (await stat(store.path)).size;
      const times: number[] = [];
      const blocking: number[] = [];
      for (let i = 0; i < (opts.quick ? 5 : 11); i++) {
        flushes.length = 0;
        store.setState('bench', String(i));
        const t0 = performance.now();
        await store.flush();
        times.push(performance.now() - t0);
        blocking.push(flushes[0]?.blockingMs ?? 0);
      }
      const label = `${rows.toLocaleString('en')} log rows, ${(size / 2 ** 20).toFixed(1)} MB`;
      figures.push({ name: `flush at ${label}`, value: median(times), unit: 'ms' });
      figures.push({ name: `flush at ${label}, host thread blocked`, value: median(blocking), unit: 'ms' });
      await store.close();
    });
  }

  // A 10 MB file as it would really look: the log is pruned to 200 rows, so the bulk is long replies.
  await withDir(async (dir) => {
    const seed = await seeded(dir, 200, 'x'.repeat(50 * 1024));
    await seed.close();
    const size = (await stat(seed.path)).size;
    const times: number[] = [];
    for (let i = 0; i < (opts.quick ? 3 : 7); i++) {
      const t0 = performance.now();
      const store = await SqlJsStore.open({ dir, pollIntervalMs: 0, onReport: () => undefined });
      times.push(performance.now() - t0);
      await store.close();
    }
    figures.push({ name: `open a ${(size / 2 ** 20).toFixed(0)} MB file (200 long log rows)`, value: median(times), unit: 'ms', target: '≤ 50' });
  });

  // The same size in short rows (pruning off): opening costs by pages, not by rows, so this should be alike.
  await withDir(async (dir) => {
    const seed = await seeded(dir, 42_000);
    await seed.close();
    const size = (await stat(seed.path)).size;
    const times: number[] = [];
    for (let i = 0; i < (opts.quick ? 3 : 7); i++) {
      const t0 = performance.now();
      const store = await SqlJsStore.open({ dir, pruneLog: false, pollIntervalMs: 0, onReport: () => undefined });
      times.push(performance.now() - t0);
      await store.close();
    }
    figures.push({ name: `open a ${(size / 2 ** 20).toFixed(0)} MB file (42 k short log rows)`, value: median(times), unit: 'ms', target: '≤ 50' });
  });

  return figures;
}
