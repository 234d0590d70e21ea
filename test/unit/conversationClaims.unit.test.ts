// Which window holds which conversation: the claim files under real folders, with two cores in one process standing
// for two windows (each core is its own instance; a retired instance is a window that is gone).
import * as assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConversationClaims, newInstance, retireInstance, type WindowStamp } from '../../src/core/orchestrator/conversationClaims';

describe('ConversationClaims', () => {
  let dir: string;
  const stamp = (label: string): WindowStamp => ({ pid: process.pid, host: hostname(), instance: newInstance(), key: `/ws/${label}`, label });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-claims-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a conversation to one window; the other is told who holds it, until that window is gone', () => {
    const one = new ConversationClaims(dir, stamp('one'));
    const two = new ConversationClaims(dir, stamp('two'));
    assert.equal(one.claim('main'), undefined, 'one claims it');
    assert.equal(one.claim('main'), undefined, 'claiming again is a no-op');
    assert.equal(two.claim('main')?.label, 'one', 'two is told one holds it');
    assert.equal(two.holder('main')?.label, 'one');
    assert.equal(two.claim('other'), undefined, 'another conversation has its own owner');
    retireInstance(one.self.instance);
    assert.equal(two.holder('main'), undefined, 'a window that is gone holds nothing');
    assert.equal(two.claim('main'), undefined, 'and its claim is taken over');
    retireInstance(two.self.instance);
  });

  it("ids that differ only where a file name cannot hold them ('team.x', 'team_x', 'team@x') are claimed apart", async () => {
    const one = new ConversationClaims(dir, stamp('one'));
    const two = new ConversationClaims(dir, stamp('two'));
    assert.equal(one.claim('team.x'), undefined);
    // Before, all three were one file: two was refused what nobody held, and releasing one freed the other's claim.
    assert.equal(two.claim('team_x'), undefined, 'another id, its own claim');
    assert.equal(one.claim('team@x'), undefined);
    two.release('team_x');
    assert.equal(two.holder('team.x')?.label, 'one', 'releasing one id leaves the others held');
    assert.equal(two.claim('team.x')?.label, 'one');
    assert.equal((await readdir(dir)).length, 2);
    one.releaseAll();
    assert.deepEqual(await readdir(dir), []);
    retireInstance(one.self.instance);
    retireInstance(two.self.instance);
  });

  it('releases on close, leaving no file behind; Doctor names each open window and what it holds', async () => {
    const one = new ConversationClaims(dir, stamp('one'));
    const two = new ConversationClaims(dir, stamp('two'));
    one.announce();
    two.announce();
    one.claim('main');
    assert.equal(one.describe(), `this window (pid ${process.pid}) holds conversation 'main'; window 'two' (pid ${process.pid}) holds no conversation`);
    assert.equal(two.describe(), `this window (pid ${process.pid}) holds no conversation; window 'one' (pid ${process.pid}) holds conversation 'main'`);
    one.releaseAll();
    one.leave();
    assert.equal(two.holder('main'), undefined);
    assert.equal(two.describe(), `this window (pid ${process.pid}) holds no conversation`);
    two.leave();
    assert.deepEqual(await readdir(dir), [], 'one file per open window and per held conversation, none once closed');
  });

  it('sweeps the presence file of a window that died without closing', async () => {
    const gone = new ConversationClaims(dir, stamp('gone'));
    const here = new ConversationClaims(dir, stamp('here'));
    gone.announce();
    retireInstance(gone.self.instance);
    assert.deepEqual(here.others(), []);
    assert.deepEqual(await readdir(dir), []);
  });

  it('sweeps, when a window opens, the claims of a window that died holding conversations (none opened again)', async () => {
    const crashed = new ConversationClaims(dir, stamp('crashed'));
    const alive = new ConversationClaims(dir, stamp('alive'));
    crashed.announce();
    alive.announce();
    crashed.claim('c-old-1');
    crashed.claim('c-old-2');
    alive.claim('main');
    retireInstance(crashed.self.instance);
    const next = new ConversationClaims(dir, stamp('next'));
    next.announce();
    assert.deepEqual(
      (await readdir(dir)).sort(),
      ['conversation-main.owner', `window-${process.pid}-${alive.self.instance}.present`, `window-${process.pid}-${next.self.instance}.present`].sort(),
    );
    assert.equal(next.holder('main')?.label, 'alive', "a live window's claim stays");
    for (const c of [alive, next]) {
      c.releaseAll();
      c.leave();
      retireInstance(c.self.instance);
    }
  });

  it('answers whether another window is open from a read of the folder at most maxAge old (asked at every turn start)', () => {
    const one = new ConversationClaims(dir, stamp('one'));
    one.announce();
    assert.equal(one.othersOpen(60_000), false, 'only this window');
    const two = new ConversationClaims(dir, stamp('two'));
    two.announce();
    assert.equal(one.othersOpen(60_000), false, 'the folder is not read again while the answer is younger than maxAge');
    assert.equal(one.othersOpen(0), true, 'read again once it is older: window two is open');
    two.leave();
    retireInstance(two.self.instance);
    assert.equal(one.othersOpen(0), false, 'window two closed');
    one.leave();
    retireInstance(one.self.instance);
  });
});
