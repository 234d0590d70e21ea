// Several real Node processes on one store folder, as several VS Code windows are: each is forked running
// test/support/storeWriterProcess.ts, with its own sql.js, its own lease and its own timers. Nothing is shared but
// the folder, so this is what the lease, the revision header and the journal replay are for.
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { StoreReport } from '../../src/core/store/types';
import type { WriterJob, WriterMessage } from '../support/storeWriterProcess';

/** The store's folder without the digest of the last write (a bounded sidecar kept on purpose, see fileDigest.ts). */
async function storeFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n !== 'baton.sqlite.digest').sort();
}

const SCRIPT = join(__dirname, '..', 'support', 'storeWriterProcess.ts');

/** One forked writer and everything it said. */
class Writer {
  readonly messages: WriterMessage[] = [];
  readonly reports: StoreReport[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;
  private waiters: Array<() => void> = [];

  constructor(job: WriterJob) {
    this.child = fork(SCRIPT, [], { execArgv: ['--require', 'tsx/cjs'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.child.on('message', (m: WriterMessage) => {
      if (m.kind === 'report') this.reports.push(m.report);
      else this.messages.push(m);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.once('exit', () => {
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.send(job);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The first message matching `match`, waiting for it; fails if the writer dies or reports a failure first. */
  async next<K extends WriterMessage['kind']>(
    kind: K,
    match: (m: Extract<WriterMessage, { kind: K }>) => boolean = () => true,
  ): Promise<Extract<WriterMessage, { kind: K }>> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const failed = this.messages.find((m) => m.kind === 'failed');
      if (failed) throw new Error(`writer failed: ${failed.message}`);
      const found = this.messages.find((m): m is Extract<WriterMessage, { kind: K }> => m.kind === kind && match(m as Extract<WriterMessage, { kind: K }>));
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`writer exited before '${kind}'`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for '${kind}'`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1000).unref();
      });
    }
  }

  go(): void {
    this.child.send('go');
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

describe('the store across separate processes', function () {
  this.timeout(120_000);
  let dir: string;
  const writers: Writer[] = [];
  const opened: SqlJsStore[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-procs-'));
  });

  afterEach(async () => {
    for (const w of writers.splice(0)) {
      w.kill();
      await w.exited;
    }
    for (const s of opened.splice(0)) await s.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  async function reopen(reports: StoreReport[] = []): Promise<SqlJsStore> {
    const store = await SqlJsStore.open({ dir, pruneLog: false, pollIntervalMs: 0, onReport: (r) => reports.push(r) });
    opened.push(store);
    return store;
  }

  async function interleave(names: string[], rounds: number): Promise<void> {
    const started = names.map((name, i) => {
      const w = new Writer({ kind: 'interleave', dir, name, rounds, memoryEvery: 5, flushDelayMs: 3 + i * 2, pollIntervalMs: 15 + i * 5 });
      writers.push(w);
      return w;
    });
    await Promise.all(started.map((w) => w.next('ready')));
    for (const w of started) w.go();
    await Promise.all(started.map((w) => w.next('done')));
    const exits = await Promise.all(started.map((w) => w.exited));
    assert.deepEqual(
      exits.map((e) => e.code),
      names.map(() => 0),
    );
    assert.deepEqual(
      started.flatMap((w) => w.reports.filter((r) => r.level !== 'info')),
      [],
      'no writer met a problem',
    );

    const reports: StoreReport[] = [];
    const store = await reopen(reports);
    assert.deepEqual(store.integrityCheck(), ['ok']);
    const log = store.recentLog(100_000);
    const expected = names.flatMap((name) => Array.from({ length: rounds }, (_, r) => `${name}-${r}`));
    assert.deepEqual(log.map((e) => e.content).sort(), [...expected].sort(), 'every row once: none lost, none doubled');
    assert.deepEqual(
      log.filter((e) => e.status !== 'complete').map((e) => e.content),
      [],
      'each writer settled its rows by the ids it was given',
    );
    for (const name of names) assert.equal(store.getState(`${name}-last`), String(rounds - 1), name);
    const memories = store.listMemories();
    const expectedMemories = names.flatMap((name) => Array.from({ length: Math.ceil(rounds / 5) }, (_, i) => `${name} fact ${i * 5} (edited)`));
    assert.deepEqual(memories.map((m) => m.content).sort(), expectedMemories.sort(), 'every memory once, edited through the id its writer got');
    assert.equal(new Set(memories.map((m) => m.id)).size, memories.length);
    assert.deepEqual(reports, []);
    assert.deepEqual(await storeFiles(dir), ['baton.sqlite'], 'no temp or lease file left behind');
  }

  it('two processes writing at once lose nothing and double nothing', async () => {
    await interleave(['a', 'b'], 120);
  });

  it('three processes writing at once lose nothing and double nothing', async () => {
    await interleave(['a', 'b', 'c'], 80);
  });

  // The writer is killed right after it says it is starting a flush (so mostly inside one: holding the lease,
  // writing or renaming its temp file). Whatever it had seen flushed must be on disk, once; the file must be sound;
  // and the next writer must take over the dead writer's lease at once and clean up what it left.
  it('a process killed with SIGKILL mid-flush loses nothing it had flushed', async () => {
    let leftBehind = 0;
    const trials = [0, 1, 3];
    let flushedBefore = 0;
    for (const [trial, killDelayMs] of trials.entries()) {
      const w = new Writer({ kind: 'flushLoop', dir, name: `t${trial}`, rowsPerFlush: 40, contentBytes: 2_000 });
      writers.push(w);
      await w.next('ready');
      w.go();
      const target = 3 + trial;
      await w.next('flushing', (m) => m.rows >= target * 40);
      if (killDelayMs) await new Promise((resolve) => setTimeout(resolve, killDelayMs));
      w.kill();
      await w.exited;
      const flushed = Math.max(0, ...w.messages.map((m) => (m.kind === 'flushed' ? m.rows : 0)));
      assert.ok(flushed >= (target - 1) * 40, `it had flushed ${flushed} rows`);
      const leftovers = (await storeFiles(dir)).filter((n) => n !== 'baton.sqlite');
      if (leftovers.length) leftBehind++;

      const reports: StoreReport[] = [];
      const store = await reopen(reports);
      assert.deepEqual(store.integrityCheck(), ['ok']);
      const rows = store.recentLog(100_000).map((e) => e.content.split(' ')[0]);
      const mine = rows.filter((c) => c.startsWith(`t${trial}-`));
      assert.equal(new Set(rows).size, rows.length, 'no row twice');
      // On disk: whole flushes from the first row on, at least every one it saw resolve (the kill may have landed
      // after the rename, before it could say so).
      assert.ok(mine.length >= flushed && mine.length % 40 === 0, `${mine.length} rows on disk, ${flushed} seen flushed`);
      assert.deepEqual(
        mine,
        Array.from({ length: mine.length }, (_, i) => `t${trial}-${i}`),
      );
      assert.equal(rows.length - mine.length, flushedBefore, 'the earlier trials’ rows are intact');
      flushedBefore = rows.length;

      // The next writer: the dead process's lease is taken over without waiting for it to go stale.
      store.setState('after', String(trial));
      const started = Date.now();
      await store.flush();
      assert.ok(Date.now() - started < 1500, `took over the dead writer's lease in ${Date.now() - started} ms`);
      assert.deepEqual(
        reports.filter((r) => r.level !== 'info'),
        [],
      );
      assert.deepEqual(await storeFiles(dir), ['baton.sqlite'], 'the temp and lease files it left were cleaned up');
      await store.close();
      opened.splice(opened.indexOf(store), 1);
    }
    // Not an assertion (timing decides where a kill lands), but the test is only worth its time if some did land mid-flush.
    console.log(`      ${leftBehind} of ${trials.length} kills left a lease or temp file behind (killed inside a flush)`);
  });

  // The same, at exact points of the flush (the child's file system stops there and waits to be killed), so the
  // test does not depend on where timing lands a kill.
  for (const step of ['lease', 'temp', 'rename'] as const) {
    it(`a process killed inside a flush (${step === 'lease' ? 'lease taken' : step === 'temp' ? 'temp file written, not renamed' : 'renamed, lease still held'}) loses nothing it had flushed`, async () => {
      const w = new Writer({ kind: 'flushLoop', dir, name: 'k', rowsPerFlush: 40, contentBytes: 500, pauseAt: step, pauseAfterRows: 120 });
      writers.push(w);
      await w.next('ready');
      w.go();
      const inside = await w.next('inside');
      w.kill();
      await w.exited;
      const flushed = Math.max(0, ...w.messages.map((m) => (m.kind === 'flushed' ? m.rows : 0)));
      assert.equal(flushed, inside.rows - 40);
      const left = (await readdir(dir)).sort();
      assert.ok(left.includes('baton.sqlite.lease'), `the dead writer's lease is left: ${left.join(', ')}`);
      assert.equal(
        left.some((n) => n.startsWith('baton.sqlite.tmp-')),
        step === 'temp',
      );

      const reports: StoreReport[] = [];
      const store = await reopen(reports);
      assert.deepEqual(store.integrityCheck(), ['ok']);
      const rows = store.recentLog(100_000).map((e) => e.content.split(' ')[0]);
      // Killed after the rename, the flush it was in is on disk too; before it, exactly what it had seen flushed.
      const expected = step === 'rename' ? inside.rows : flushed;
      assert.deepEqual(
        rows,
        Array.from({ length: expected }, (_, i) => `k-${i}`),
      );
      store.setState('after', step);
      const started = Date.now();
      await store.flush();
      assert.ok(Date.now() - started < 1500, `took over the dead writer's lease in ${Date.now() - started} ms`);
      assert.deepEqual(
        reports.filter((r) => r.level !== 'info'),
        [],
      );
      assert.deepEqual(await storeFiles(dir), ['baton.sqlite'], 'the lease and temp file it left were cleaned up');
    });
  }

  it('a writer killed mid-flush does not stop another process from writing, nor lose what either flushed', async () => {
    const survivor = new Writer({ kind: 'interleave', dir, name: 's', rounds: 150, memoryEvery: 10, flushDelayMs: 3, pollIntervalMs: 15 });
    const victim = new Writer({ kind: 'flushLoop', dir, name: 'v', rowsPerFlush: 20, contentBytes: 1_000 });
    writers.push(survivor, victim);
    await Promise.all([survivor.next('ready'), victim.next('ready')]);
    survivor.go();
    victim.go();
    await victim.next('flushing', (m) => m.rows >= 100);
    victim.kill();
    await victim.exited;
    const flushed = Math.max(0, ...victim.messages.map((m) => (m.kind === 'flushed' ? m.rows : 0)));
    await survivor.next('done');
    assert.equal((await survivor.exited).code, 0);
    assert.deepEqual(
      survivor.reports.filter((r) => r.level !== 'info'),
      [],
    );

    const store = await reopen();
    assert.deepEqual(store.integrityCheck(), ['ok']);
    const rows = store.recentLog(100_000).map((e) => e.content.split(' ')[0]);
    assert.equal(new Set(rows).size, rows.length, 'no row twice');
    assert.deepEqual(rows.filter((c) => c.startsWith('s-')).sort(), Array.from({ length: 150 }, (_, i) => `s-${i}`).sort());
    const victims = rows.filter((c) => c.startsWith('v-'));
    for (let i = 0; i < flushed; i++) assert.ok(victims.includes(`v-${i}`), `flushed row v-${i} is there`);
    assert.ok(existsSync(join(dir, 'baton.sqlite')));
  });
});
