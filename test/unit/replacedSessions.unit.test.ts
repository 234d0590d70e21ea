// A session replaced because the model, routing or skills changed is deleted and its claim released, at once: each old
// one stayed in copilot-sessions/ (up to 4 MB of history) with its claims/<id>.claim file, which kept the hourly sweep
// from removing it while the window was open. One another window holds stays; one set aside after a runtime reset is
// resumed, not deleted. The production wiring (createBatonCore), the runtime in memory.
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { reply } from '../support/inMemoryAgentSessions';
import { eachUnitCore, type UnitCore } from '../support/inMemoryCore';

/** A pid that answers `kill(pid, 0)` and is not this process: stands in for another VS Code window. */
const OTHER_WINDOW_PID = process.ppid;

describe('sessions replaced by a model, routing or skill change', () => {
  let fixture: UnitCore;
  eachUnitCore((core) => (fixture = core));

  const claimFile = (id: string): string => join(fixture.storageDir, 'claims', `${id}.claim`);
  const deleted = (id: string): boolean => fixture.sessions.states.get(id)?.deleted === true;
  const savedId = (): string => fixture.core.store.getState('orchestrator_session_id')!;
  const send = async (text: string): Promise<string> => {
    await fixture.core.orchestrator.enqueue(text, { channel: 'panel' }).done;
    return savedId();
  };
  const switchModel = (model: string): void => {
    fixture.settings.routing.model = model;
    fixture.core.control.settingsChanged('the model');
  };

  it('deletes each replaced session and releases its claim; the live one stays', async () => {
    fixture.sessions.script('orchestrator', reply('a1'), reply('a2'), reply('a3'), reply('a4'));
    const first = await send('first');
    assert.ok(existsSync(claimFile(first)), 'the live session is claimed');
    switchModel('claude-haiku-4.5');
    const second = await send('on haiku');
    switchModel('claude-sonnet-4.5');
    const third = await send('on sonnet');
    fixture.core.renewSession('skills changed');
    const fourth = await send('with the new skill');
    assert.equal(new Set([first, second, third, fourth]).size, 4, 'each change started a new session');
    for (const old of [first, second, third]) {
      assert.ok(deleted(old), `${old} replaced, deleted`);
      assert.ok(!existsSync(claimFile(old)), `${old}'s claim released`);
    }
    assert.ok(!deleted(fourth), 'the live session kept');
    assert.ok(existsSync(claimFile(fourth)), 'and still claimed');
    assert.match(fixture.sessions.orchestratorPrompts.at(-1)!, /on sonnet/, 'the new session starts from the recent turns');
  });

  it('never deletes a replaced session another window holds', async () => {
    fixture.sessions.script('orchestrator', reply('a1'), reply('a2'), reply('a3'));
    const first = await send('first');
    switchModel('claude-haiku-4.5');
    // Another live window took the saved session over (its claim names its pid) before the next message here.
    writeFileSync(claimFile(first), JSON.stringify({ pid: OTHER_WINDOW_PID, host: hostname() }));
    const second = await send('on haiku');
    assert.notEqual(second, first);
    assert.ok(!deleted(first), "the other window's session is not deleted");
    assert.ok(existsSync(claimFile(first)), 'nor its claim');
    switchModel('claude-sonnet-4.5');
    await send('on sonnet');
    assert.ok(deleted(second), 'one only this window held is');
    assert.ok(!deleted(first));
  });

  it('resumes, and keeps, a session set aside by a runtime reset', async () => {
    fixture.sessions.script('orchestrator', reply('a1'), reply('a2'));
    const first = await send('first');
    await fixture.sessions.reset('the runtime went away');
    assert.equal(await send('again'), first, 'the same session resumed');
    assert.ok(!deleted(first));
    assert.ok(existsSync(claimFile(first)));
  });
});
