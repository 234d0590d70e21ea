// A message goes to the conversation it was typed in, whatever the panel shows by the time it leaves: its references
// are read first, and Edit and Retry take the conversation back first, and the user may open another conversation
// (or delete this one) meanwhile. Through the production wiring (createBatonCore, in-memory runtime).
import * as assert from 'node:assert/strict';
import type { AttachedReference, EditorContextPort, GatherResult } from '../../src/core/context/contextPort';
import { referenceLabel, type Reference } from '../../src/core/context/references';
import type { HostMessage } from '../../src/shared/protocol';
import { reply } from '../support/inMemoryAgentSessions';
import { nextEvent, startUnitCore, type UnitCore } from '../support/inMemoryCore';
import { waitFor } from '../support/waitFor';

/** An editor whose reads of references wait until the test releases them. */
class HeldEditorContext implements EditorContextPort {
  private release: (() => void) | undefined;
  private held = new Promise<void>((r) => (this.release = r));
  async pick(): Promise<never> {
    throw new Error('not picked in these tests');
  }
  async drop(): Promise<never> {
    throw new Error('not dropped in these tests');
  }
  async gather(refs: readonly AttachedReference[]): Promise<GatherResult> {
    await this.held;
    return { ok: true, references: refs.map(({ ref }) => ({ ref, label: referenceLabel(ref), path: 'a.ts', text: 'FILE A', truncated: false })) };
  }
  open(): void {}
  releaseReads(): void {
    this.release?.();
  }
}

const FILE: Reference = { kind: 'file', path: '/ws/a.ts' };

describe('A message goes to the conversation it was typed in', () => {
  let fixture: UnitCore;
  let port: HeldEditorContext;
  let posted: HostMessage[];

  beforeEach(async () => {
    port = new HeldEditorContext();
    const host = {
      openLink: () => undefined,
      insertCode: () => undefined,
      runCommand: () => undefined,
      toggleRouting: () => undefined,
      openWorker: () => undefined,
      context: port,
    };
    fixture = await startUnitCore({ overrides: { host } });
    posted = [];
    fixture.core.chat.onDidPost((m) => posted.push(m));
  });
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  const users = (conversation: string): string[] =>
    fixture.core.store
      .recentLog(20, conversation)
      .filter((e) => e.role === 'user')
      .map((e) => e.content);

  it('sent with a file in A, then B opened while the file is read: it is answered in A; what is typed in B goes to B', async () => {
    const chat = fixture.core.chat;
    const a = fixture.core.conversations.activeId;
    fixture.sessions.script('orchestrator', reply('Earlier.'), reply('About a.ts.'), reply('Hello from B.'));
    // New Chat keeps an empty conversation shown: A holds a message already.
    await fixture.core.conversations.active.enqueue('an earlier message', { channel: 'panel' }).done;
    chat.receive({ type: 'chat/send', text: 'explain this file', references: [{ ref: FILE }] });
    chat.receive({ type: 'chat/new' });
    const b = fixture.core.conversations.activeId;
    assert.notEqual(a, b);
    chat.receive({ type: 'chat/send', text: 'a question for B' });
    const inB = nextEvent(fixture.core, 'turn.completed', (e) => e.result.content === 'Hello from B.');
    port.releaseReads();
    await inB;
    assert.deepEqual(users(a), ['an earlier message', 'explain this file']);
    assert.deepEqual(users(b), ['a question for B']);
    assert.deepEqual(
      fixture.core.store
        .recentLog(20, a)
        .filter((e) => e.role === 'assistant')
        .map((e) => e.content),
      ['Earlier.', 'About a.ts.'],
      'answered in A',
    );
  });

  it('Edit in A, then B opened while A is taken back: the edited message goes to A, and B is left as it was', async () => {
    const chat = fixture.core.chat;
    const a = fixture.core.conversations.activeId;
    fixture.sessions.script('orchestrator', reply('One.'), reply('Two.'), reply('Two, edited.'));
    await fixture.core.conversations.active.enqueue('question one', { channel: 'panel' }).done;
    await fixture.core.conversations.active.enqueue('question two', { channel: 'panel' }).done;
    await waitFor('the answer settled', () => !fixture.core.conversations.active.busy);
    const two = fixture.core.store.recentLog(20, a).find((e) => e.content === 'question two');
    assert.ok(two);
    chat.receive({ type: 'chat/new' });
    const b = fixture.core.conversations.activeId;
    chat.receive({ type: 'conversation/open', id: a });
    const edited = nextEvent(fixture.core, 'turn.completed', (e) => e.result.content === 'Two, edited.');
    chat.receive({ type: 'chat/edit', id: `log-${two.id}`, text: 'question two, edited' });
    chat.receive({ type: 'conversation/open', id: b });
    await edited;
    assert.deepEqual(users(a), ['question one', 'question two, edited']);
    assert.deepEqual(users(b), []);
    assert.ok(!posted.some((m) => m.type === 'edit/refused'));
  });

  it('sent with a file in A, then A deleted while the file is read: not sent anywhere, A stays deleted, the text comes back with why', async () => {
    const chat = fixture.core.chat;
    const a = fixture.core.conversations.activeId;
    fixture.sessions.script('orchestrator', reply('Earlier.'));
    await fixture.core.conversations.active.enqueue('an earlier message', { channel: 'panel' }).done;
    chat.receive({ type: 'chat/send', text: 'explain this file', references: [{ ref: FILE }] });
    await fixture.core.conversations.delete(a);
    const shown = fixture.core.conversations.activeId;
    port.releaseReads();
    await chat.context.sendWith('', [], () => undefined); // waits for the reads before it
    const refused = posted.find((m) => m.type === 'chat/refused');
    assert.ok(refused?.type === 'chat/refused', JSON.stringify(posted.map((m) => m.type)));
    assert.equal(refused.text, 'explain this file');
    assert.match(refused.message, /deleted/);
    assert.ok(!fixture.core.store.listConversations().some((c) => c.id === a), 'A is not brought back');
    assert.deepEqual(users(shown), [], 'nothing sent where the panel went');
    assert.deepEqual(
      fixture.sessions.orchestratorPrompts.filter((p) => p.includes('explain this file')),
      [],
    );
  });
});
