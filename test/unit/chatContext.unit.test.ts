// The chat's side of editor context, through the production wiring (createBatonCore, in-memory runtime)
// with a fake EditorContextPort: references reach the prompt as tags and the log as meta, a refused
// reference sends nothing, sends keep their order while references are read, the implicit chip and
// attached chips ride on the snapshot, and a reload shows the references again.
import * as assert from 'node:assert/strict';
import type { AttachedReference, EditorContextPort, GatherResult, ResolvedReference } from '../../src/core/context/contextPort';
import { referenceKey, referenceLabel, type Reference, type ReferenceChip } from '../../src/core/context/references';
import type { HostMessage } from '../../src/shared/protocol';
import { reply, sequence } from '../support/inMemoryAgentSessions';
import { nextEvent, startUnitCore, type UnitCore } from '../support/inMemoryCore';

class FakeEditorContext implements EditorContextPort {
  gathered: AttachedReference[][] = [];
  opened: Reference[] = [];
  /** Set to make gather fail, or to hold it until released. */
  failWith: GatherResult | undefined;
  hold: Promise<void> | undefined;

  async pick(kind: Reference['kind']) {
    const ref: Reference = kind === 'changes' ? { kind } : { kind: 'file', path: `/ws/picked.${kind}` };
    return { ok: true as const, chips: [chip(ref)] };
  }
  async drop(uris: string[]) {
    return { ok: true as const, chips: uris.map((u) => chip({ kind: 'file', path: u })) };
  }
  /** Set to refuse any gather that holds a reference to this path. */
  refusePath: string | undefined;
  async gather(refs: readonly AttachedReference[]): Promise<GatherResult> {
    this.gathered.push([...refs]);
    await this.hold;
    if (this.failWith) return this.failWith;
    if (refs.some(({ ref }) => 'path' in ref && ref.path === this.refusePath))
      return { ok: false, error: { kind: 'protected', message: `${this.refusePath} is inside a protected path.` } };
    return { ok: true, references: refs.map(({ ref, implicit }) => resolved(ref, implicit)) };
  }
  open(ref: Reference): void {
    this.opened.push(ref);
  }
  hint: string | undefined;
  workspaceHint(): string | undefined {
    return this.hint;
  }
}

function chip(ref: Reference, implicit?: boolean): ReferenceChip {
  return { key: referenceKey(ref), ref, label: referenceLabel(ref), detail: 'detail', ...(implicit ? { implicit } : {}) };
}

function resolved(ref: Reference, implicit?: boolean): ResolvedReference {
  if (ref.kind === 'selection') {
    return {
      ref,
      label: referenceLabel(ref),
      path: 'src/a.ts',
      lines: `${ref.startLine}-${ref.endLine}`,
      language: 'typescript',
      text: 'function add(a, b) {\n  return a + b;\n}',
      truncated: false,
      ...(implicit ? { implicit } : {}),
    };
  }
  return {
    ref,
    label: referenceLabel(ref),
    path: 'big.log',
    text: 'first lines\n[truncated: big.log is 5.0 MB]',
    truncated: true,
    note: 'truncated: big.log is 5.0 MB',
  };
}

const SELECTION: Reference = { kind: 'selection', path: '/ws/src/a.ts', startLine: 10, endLine: 12 };
const BIG: Reference = { kind: 'file', path: '/ws/big.log' };

describe('ChatController with editor context', () => {
  let fixture: UnitCore;
  let port: FakeEditorContext;
  let posted: HostMessage[];

  beforeEach(async () => {
    port = new FakeEditorContext();
    const host = {
      openLink: () => undefined,
      insertCode: () => undefined,
      runCommand: () => undefined,
      toggleRouting: () => undefined,
      openWorker: () => undefined,
      context: port,
    };
    fixture = await startUnitCore({ overrides: { host } });
    adopt();
  });
  function adopt(): void {
    posted = [];
    fixture.core.chat.onDidPost((m) => posted.push(m));
  }
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  const send = (text: string, references?: AttachedReference[]) =>
    fixture.core.chat.receive({ type: 'chat/send', text, ...(references ? { references } : {}) });
  const lastSnapshot = () => {
    fixture.core.chat.receive({ type: 'snapshot/request' });
    const snap = posted.at(-1);
    assert.ok(snap?.type === 'snapshot');
    return snap.snapshot;
  };

  it("references from the Chat view: an implicit one that cannot go is left out, never refusing the message; the user's own still refuse it", async () => {
    const SECRET: Reference = { kind: 'file', path: '/home/u/.ssh/config' };
    port.refusePath = SECRET.path;
    const { context } = fixture.core.chat;
    const read = await context.readLenient([{ ref: SELECTION }, { ref: SECRET, implicit: true }]);
    assert.ok(read.ok && read.context, JSON.stringify(read));
    assert.deepEqual(
      read.context.stored.map((r) => r.label),
      ['a.ts:10-12'],
      'the protected active editor is not sent',
    );
    assert.doesNotMatch(read.context.prompt, /\.ssh/);
    const refused = await context.readLenient([{ ref: SELECTION }, { ref: SECRET }]);
    assert.deepEqual(refused, { ok: false, kind: 'protected', message: '/home/u/.ssh/config is inside a protected path.' });
  });

  it('puts the references after the text in the prompt, tagged, and keeps them with the message in the log', async () => {
    fixture.sessions.script('orchestrator', reply('It adds two numbers.'));
    const done = nextEvent(fixture.core, 'turn.completed');
    send('explain this', [{ ref: SELECTION, implicit: true }, { ref: BIG }]);
    await done;
    const [prompt] = fixture.sessions.orchestratorPrompts;
    assert.ok(prompt);
    assert.match(prompt, /^\[via panel\] explain this\n\n<references>\n/);
    assert.match(
      prompt,
      /<reference kind="selection" path="src\/a\.ts" lines="10-12" language="typescript" from="active-editor">\nfunction add\(a, b\) \{\n {2}return a \+ b;\n\}\n<\/reference>/,
    );
    assert.match(prompt, /<reference kind="file" path="big\.log" truncated="true">\nfirst lines\n\[truncated: big\.log is 5\.0 MB\]\n<\/reference>/);

    // The log keeps the user's words as they were typed, the references in meta.
    const row = fixture.core.store.recentLog(10).find((e) => e.role === 'user');
    assert.equal(row?.content, 'explain this');
    const appended = posted.find((m) => m.type === 'message/append' && m.message.role === 'user');
    assert.ok(appended?.type === 'message/append');
    assert.deepEqual(
      appended.message.references?.map((r) => [r.label, r.lines, r.text !== undefined, r.truncated ?? false, r.implicit ?? false]),
      [
        ['a.ts:10-12', '10-12', true, false, true],
        ['big.log', undefined, false, true, false],
      ],
    );

    // A window reload: the history shows the references on the message again.
    await fixture.restart();
    adopt();
    const user = lastSnapshot().messages.find((m) => m.role === 'user');
    assert.deepEqual(
      user?.references?.map((r) => r.label),
      ['a.ts:10-12', 'big.log'],
    );
    assert.equal(user?.references?.[0]?.text, 'function add(a, b) {\n  return a + b;\n}');
  });

  it('sends nothing when a reference is refused, and gives the text back to the composer with the reason', async () => {
    port.failWith = { ok: false, error: { kind: 'binary', message: 'logo.png is a binary file (16 B): Baton attaches text files only.' } };
    send('what is in this image?', [{ ref: { kind: 'file', path: '/ws/logo.png' } }]);
    await fixture.core.chat.context.sendWith('', [], () => undefined); // waits for the chain
    const refused = posted.find((m) => m.type === 'chat/refused');
    assert.ok(refused?.type === 'chat/refused');
    assert.deepEqual([refused.text, refused.kind], ['what is in this image?', 'binary']);
    assert.match(refused.message, /binary file/);
    assert.equal(fixture.core.store.recentLog(10).length, 0, 'nothing logged');
    assert.deepEqual(fixture.sessions.runs, [], 'nothing sent');
  });

  it('keeps the order of messages while an earlier one waits for its references', async () => {
    let release!: () => void;
    port.hold = new Promise((r) => (release = r));
    fixture.sessions.script('orchestrator', reply('first'), reply('second'));
    const second = nextEvent(fixture.core, 'turn.completed', (e) => e.result.content === 'second');
    send('one, with a selection', [{ ref: SELECTION }]);
    send('two, plain');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(fixture.core.store.recentLog(10).length, 0, 'the plain message waits behind the one being read');
    release();
    await second;
    assert.deepEqual(
      fixture.core.store
        .recentLog(10)
        .filter((e) => e.role === 'user')
        .map((e) => e.content),
      ['one, with a selection', 'two, plain'],
    );
  });

  it('shows the implicit chip and attached chips in the snapshot, until a message takes them or the user removes one', async () => {
    fixture.core.chat.context.setImplicit(chip(SELECTION, true));
    assert.deepEqual(posted.at(-1), { type: 'context/implicit', seq: posted.at(-1)?.seq, chip: chip(SELECTION, true) });
    fixture.core.chat.receive({ type: 'context/pick', kind: 'changes' });
    fixture.core.chat.receive({ type: 'context/drop', uris: ['/ws/dropped.ts'] });
    await new Promise((r) => setImmediate(r));
    const added = posted.filter((m) => m.type === 'context/added');
    assert.equal(added.length, 2);
    let snap = lastSnapshot();
    assert.equal(snap.implicit?.label, 'a.ts:10-12');
    assert.deepEqual(
      snap.attach?.map((c) => c.label),
      ['Changes', 'dropped.ts'],
    );
    // A chip the user removed in the panel does not come back with the next snapshot.
    fixture.core.chat.receive({ type: 'context/remove', key: chip({ kind: 'file', path: '/ws/dropped.ts' }).key });
    snap = lastSnapshot();
    assert.deepEqual(
      snap.attach?.map((c) => c.label),
      ['Changes'],
    );
    fixture.sessions.script('orchestrator', reply('ok'));
    const done = nextEvent(fixture.core, 'turn.completed');
    send('go', [{ ref: { kind: 'changes' } }]);
    await done;
    snap = lastSnapshot();
    assert.equal(snap.attach, undefined);
    fixture.core.chat.receive({ type: 'context/open', ref: BIG });
    assert.deepEqual(port.opened, [BIG]);
  });

  it('resends an interrupted message with its references read again', async () => {
    fixture.core.store.appendLog({
      role: 'user',
      content: 'explain this',
      source: 'panel',
      status: 'pending',
      meta: JSON.stringify({ references: [{ ref: SELECTION, label: 'a.ts:10-12', lines: '10-12' }] }),
    });
    await fixture.restart();
    adopt();
    const interrupted = lastSnapshot().messages.find((m) => m.status === 'interrupted');
    assert.ok(interrupted);
    assert.equal(interrupted.references?.[0]?.label, 'a.ts:10-12');
    fixture.sessions.script('orchestrator', reply('again'));
    const done = nextEvent(fixture.core, 'turn.completed');
    fixture.core.chat.receive({ type: 'chat/resend', id: interrupted.id });
    await done;
    assert.deepEqual(port.gathered.at(-1), [{ ref: SELECTION, implicit: undefined }]);
    assert.match(fixture.sessions.orchestratorPrompts[0] ?? '', /<reference kind="selection" path="src\/a\.ts" lines="10-12"/);
  });

  it('in a multi-root workspace, tells the model which folder the active file is in, with or without references', async () => {
    port.hint = "<editor>The user's active file is in the workspace folder /ws/b.</editor>";
    fixture.sessions.script('orchestrator', reply('one'), reply('two'));
    const second = nextEvent(fixture.core, 'turn.completed', (e) => e.result.content === 'two');
    send('fix the build');
    send('explain this', [{ ref: SELECTION }]);
    await second;
    const [plain, withRefs] = fixture.sessions.orchestratorPrompts;
    assert.equal(plain, "[via panel] fix the build\n\n<editor>The user's active file is in the workspace folder /ws/b.</editor>");
    assert.match(withRefs ?? '', /<\/references>\n\n<editor>The user's active file is in the workspace folder \/ws\/b\.<\/editor>$/);
    // The row names only its window (who wrote it, who runs it): the hint is not stored with the message.
    assert.deepEqual(Object.keys(JSON.parse(fixture.core.store.recentLog(10)[0]?.meta ?? '{}') as object).sort(), ['runner', 'window']);
  });
});

describe('create_worker_session without working_dir', () => {
  it('goes to the folder of the active file and says so; with no such folder it asks for one', async () => {
    let folder: string | undefined;
    const fixture = await startUnitCore({ overrides: { defaultWorkerFolder: () => folder } });
    // In place: this test is about which folder; the worker's own directory is then that folder.
    fixture.workerSettings.isolation = 'none';
    try {
      folder = fixture.workDir;
      const results: string[] = [];
      fixture.sessions.script(
        'orchestrator',
        sequence(async (ctx) => {
          results.push(await ctx.callTool('create_worker_session', { name: 'here', initial_prompt: 'TASK: list files' }));
          folder = undefined;
          results.push(await ctx.callTool('create_worker_session', { name: 'nowhere', initial_prompt: 'TASK: other' }));
        }, reply('started')),
        reply('summary'),
      );
      fixture.sessions.script('worker', reply('listed'));
      const summary = nextEvent(fixture.core, 'turn.completed', (e) => e.result.content === 'summary', 5000);
      fixture.core.chat.receive({ type: 'chat/send', text: 'list the files here' });
      await summary;
      assert.match(
        results[0] ?? '',
        new RegExp(
          `worker 'here' started in .*${fixture.workDir.split('/').pop()!}.*\\(the workspace folder of the user's active file, as no working_dir was given\\)`,
        ),
      );
      assert.match(results[1] ?? '', /working_dir is required here: no file is open in a workspace folder/);
      const worker = fixture.sessions.runs.find((r) => r.role === 'worker');
      assert.ok(worker?.workingDirectory?.endsWith(fixture.workDir.split('/').pop()!), worker?.workingDirectory);
    } finally {
      await fixture.dispose();
    }
  });
});
