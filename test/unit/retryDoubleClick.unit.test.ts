// Retry pressed twice (a double click) on a reply whose message carried a file reference: its references are read
// before the conversation is taken back, so both presses found the message; the second then failed to take it back
// (the first had) and the panel said "Not retried: That message is no longer in this conversation." although the
// retry worked. A second Retry of a message whose retry is under way is ignored (logged). Production wiring,
// in-memory runtime.
import * as assert from 'node:assert/strict';
import type { AttachedReference, EditorContextPort, GatherResult } from '../../src/core/context/contextPort';
import { referenceLabel, type Reference } from '../../src/core/context/references';
import type { HostMessage } from '../../src/shared/protocol';
import { reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, until, type UnitCore } from '../support/inMemoryCore';

/** An editor whose reads take a moment, as a file or git read does. */
class SlowEditorContext implements EditorContextPort {
  async pick(): Promise<never> {
    throw new Error('not picked in these tests');
  }
  async drop(): Promise<never> {
    throw new Error('not dropped in these tests');
  }
  async gather(refs: readonly AttachedReference[]): Promise<GatherResult> {
    await new Promise((r) => setTimeout(r, 30));
    return { ok: true, references: refs.map(({ ref }) => ({ ref, label: referenceLabel(ref), path: 'a.ts', text: 'FILE A', truncated: false })) };
  }
  open(): void {}
}

const FILE: Reference = { kind: 'file', path: '/ws/a.ts' };

describe('Retry pressed twice on a reply', () => {
  let fixture: UnitCore;
  let posted: HostMessage[];

  beforeEach(async () => {
    const host = {
      openLink: () => undefined,
      insertCode: () => undefined,
      runCommand: () => undefined,
      toggleRouting: () => undefined,
      openWorker: () => undefined,
      context: new SlowEditorContext(),
    };
    fixture = await startUnitCore({ overrides: { host } });
    posted = [];
    fixture.core.chat.onDidPost((m) => posted.push(m));
    fixture.core.chat.receive({ type: 'ready' });
  });
  afterEach(async function () {
    await fixture.dispose();
    if (this.currentTest?.state === 'passed') fixture.sessions.assertScriptDone();
  });

  it('retries once, and the second press says nothing (its message had a file reference)', async () => {
    const { core, sessions, logger } = fixture;
    sessions.script('orchestrator', reply('A1'), reply('A2'));
    core.chat.receive({ type: 'chat/send', text: 'explain a.ts', references: [{ ref: FILE }] });
    await until(() => sessions.orchestratorPrompts.length === 1 && !core.chat.state().busy, 'the first answer', 3000);
    const asked = core.store.recentLog(10).find((e) => e.role === 'user')!;

    core.chat.receive({ type: 'chat/retry', id: `log-${asked.id}` });
    await new Promise((r) => setTimeout(r, 5));
    core.chat.receive({ type: 'chat/retry', id: `log-${asked.id}` });
    await until(() => core.store.recentLog(10).some((e) => e.role === 'assistant' && e.content === 'A2'), 'the retried answer', 3000);
    await new Promise((r) => setTimeout(r, 100));

    const refusals = posted.filter((m) => m.type === 'context/refused' || m.type === 'chat/refused');
    assert.deepEqual(refusals, [], 'no refusal shown for the second press');
    assert.equal(sessions.orchestratorPrompts.length, 2, 'the model was asked again once');
    assert.match(sessions.orchestratorPrompts[1]!, /explain a\.ts[\s\S]*FILE A/, 'with its reference read again');
    assert.deepEqual(
      core.store
        .recentLog(10)
        .filter((e) => e.role !== 'system')
        .map((e) => [e.role, e.content]),
      [
        ['user', 'explain a.ts'],
        ['assistant', 'A2'],
      ],
      'the conversation holds the retried exchange once',
    );
    assert.ok(
      logger.lines.some((l) => l.includes(`Retry of log-${asked.id}`) && l.includes('under way')),
      'the ignored press is logged',
    );
  });
});
