// A window that crashed (no release, no leave) and whose pid a live, unrelated process holds after a reboot, or whose
// machine was renamed since: it is gone, so its conversation goes to the next window and its pending message is
// offered for resending. A live window that is merely slow, and a window of an older Baton, keep what they hold.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConversationClaims, newInstance, retireInstance, type WindowStamp } from '../../src/core/orchestrator/conversationClaims';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { startUnitCore, until } from '../support/inMemoryCore';
import { reply } from '../support/turnScripts';

/** A pid that answers `kill(pid, 0)` and is no Baton window: the test's parent (a shell, npm, mocha's runner). */
const LIVE_OTHER_PID = process.ppid;

/** What a window of another process wrote: its stamp, as a window that keeps its presence fresh writes it. */
function otherWindow(over: Partial<WindowStamp> = {}): WindowStamp {
  return { pid: LIVE_OTHER_PID, host: hostname(), instance: `crashed-${Math.random()}`, key: '/ws/crashed', label: 'crashed', beats: true, ...over };
}

/** Leaves in `dir` what a window leaves when it crashes holding `conversation`: its claim and its presence file. */
function leaveBehind(dir: string, w: WindowStamp, presenceAgeMs: number | undefined, conversation = 'main'): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `conversation-${conversation}.owner`), JSON.stringify({ ...w, conversation, since: new Date().toISOString() }));
  if (presenceAgeMs === undefined) return;
  const file = join(dir, `window-${w.pid}-${w.instance}.present`);
  writeFileSync(file, JSON.stringify(w));
  const at = (Date.now() - presenceAgeMs) / 1000;
  utimesSync(file, at, at);
}

describe('A crashed window whose pid is reused, or whose host was renamed', () => {
  let dir: string;
  const here = (timing?: { beatMs: number; staleMs: number }): ConversationClaims =>
    new ConversationClaims(dir, { pid: process.pid, host: hostname(), instance: newInstance(), key: '/ws/here', label: 'here', beats: true }, timing);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'baton-pid-reuse-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds nothing once its presence file is older than the bound, although its pid answers', () => {
    leaveBehind(dir, otherWindow(), 10 * 60_000);
    const claims = here();
    assert.equal(claims.holder('main'), undefined, 'a stale presence is a window that is gone');
    assert.equal(claims.claim('main'), undefined, 'its claim is taken over');
    retireInstance(claims.self.instance);
  });

  it('holds nothing when its host was renamed since (macOS) and its presence is stale', () => {
    leaveBehind(dir, otherWindow({ host: 'old-name.local', pid: 999_999 }), 10 * 60_000);
    const claims = here();
    assert.equal(claims.claim('main'), undefined);
    retireInstance(claims.self.instance);
  });

  it('holds nothing when it left no presence file at all', () => {
    leaveBehind(dir, otherWindow({ beats: undefined }), undefined);
    const claims = here();
    assert.equal(claims.claim('main'), undefined);
    retireInstance(claims.self.instance);
  });

  it('a live window a few beats late (busy for seconds), on this host or another, keeps its conversation', () => {
    for (const host of [hostname(), 'other-machine']) {
      const w = otherWindow({ host });
      leaveBehind(dir, w, 15_000);
      const claims = here();
      assert.equal(claims.claim('main')?.instance, w.instance, host);
      assert.equal(claims.holder('main')?.instance, w.instance, host);
      assert.deepEqual(
        claims.others().map((o) => o.instance),
        [w.instance],
      );
      retireInstance(claims.self.instance);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a window of an older Baton (no heartbeat: its presence is as old as the window) keeps its conversation while its pid lives', () => {
    const w = otherWindow({ beats: undefined });
    leaveBehind(dir, w, 10 * 60_000);
    const claims = here();
    assert.equal(claims.claim('main')?.instance, w.instance);
    assert.equal(claims.others().length, 1, 'nor is its presence swept');
    retireInstance(claims.self.instance);
  });

  it('an open window rewrites its presence every beat, and stops (its file removed) when it leaves', async () => {
    const claims = here({ beatMs: 20, staleMs: 200 });
    claims.announce();
    const file = join(dir, `window-${process.pid}-${claims.self.instance}.present`);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(file, old, old);
    await sleep(80);
    assert.ok(Date.now() - statSync(file).mtimeMs < 1000, 'touched again');
    claims.leave();
    await sleep(80);
    assert.equal(existsSync(file), false, 'no beat after leave');
    retireInstance(claims.self.instance);
  });

  it('after the clock jumps (the machine slept), no window is judged by its age until each had a beat to write', async () => {
    const w = otherWindow();
    leaveBehind(dir, w, 0);
    const claims = here({ beatMs: 50, staleMs: 300 });
    const realNow = Date.now;
    Date.now = () => realNow() + 10 * 60_000;
    try {
      assert.equal(claims.holder('main')?.instance, w.instance, 'just woken: its presence is as old as the sleep, not stale');
      await sleep(150);
      assert.equal(claims.holder('main'), undefined, 'two beats later it would have written one: gone');
    } finally {
      Date.now = realNow;
    }
    retireInstance(claims.self.instance);
  });

  it('a window whose conversation was taken while it was judged gone (frozen past the bound) gives it up at its next beat', async () => {
    const frozen = here({ beatMs: 20, staleMs: 200 });
    frozen.announce();
    assert.equal(frozen.claim('main'), undefined);
    const next = otherWindow();
    leaveBehind(dir, next, 0);
    await sleep(80);
    assert.equal(frozen.holder('main')?.instance, next.instance, 'the next turn goes to the window that took it');
    assert.equal(frozen.claim('main')?.instance, next.instance);
    frozen.leave();
    retireInstance(frozen.self.instance);
  });

  it('a new message is answered by the next window, not handed to the crashed one', async () => {
    const f = await startUnitCore();
    try {
      f.sessions.script('orchestrator', reply('first answer'), reply('second answer'));
      await f.core.orchestrator.enqueue('first', { channel: 'panel' }).done;
      await f.restart(undefined, async () => {
        leaveBehind(join(f.storageDir, 'claims'), otherWindow({ key: f.workDir }), 10 * 60_000);
      });
      const turn = f.core.orchestrator.enqueue('second', { channel: 'panel' });
      const outcome = await Promise.race([turn.done.then(() => 'answered'), new Promise((r) => setTimeout(() => r('not answered'), 3000))]);
      assert.equal(outcome, 'answered');
      assert.deepEqual(
        f.core.store.recentLog(10).map((e) => `${e.role}:${e.status}:${e.content}`),
        ['user:complete:first', 'assistant:complete:first answer', 'user:complete:second', 'assistant:complete:second answer'],
      );
    } finally {
      await f.dispose();
    }
  });

  it('its pending message is marked interrupted (offered for resending) when the next window starts', async () => {
    const f = await startUnitCore();
    try {
      const crashed = otherWindow({ key: f.workDir });
      await f.restart(undefined, async () => {
        const store = await SqlJsStore.open({ dir: f.storageDir, pollIntervalMs: 0 });
        const runner = { pid: crashed.pid, host: crashed.host, instance: crashed.instance, beats: true };
        store.appendLog({
          role: 'user',
          content: 'sent just before the crash',
          source: 'panel',
          status: 'pending',
          meta: JSON.stringify({ window: crashed, runner }),
        });
        await store.close();
        const claims = join(f.storageDir, 'claims');
        mkdirSync(claims, { recursive: true });
        const file = join(claims, `window-${crashed.pid}-${crashed.instance}.present`);
        writeFileSync(file, JSON.stringify(crashed));
        utimesSync(file, (Date.now() - 10 * 60_000) / 1000, (Date.now() - 10 * 60_000) / 1000);
      });
      await until(() => f.core.store.recentLog(5).some((e) => e.status === 'interrupted'), 'the row to be marked interrupted', 1500).catch(() => undefined);
      assert.deepEqual(
        f.core.store.recentLog(5).map((e) => `${e.role}:${e.status}:${e.content}`),
        ['user:interrupted:sent just before the crash'],
      );
    } finally {
      await f.dispose();
    }
  });
});
