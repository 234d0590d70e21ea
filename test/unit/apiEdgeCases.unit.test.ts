// Edges of the public API an auditor found, each as the calling extension sees it (production wiring, in-memory
// runtime): version 1's turn.completed for a turn that ends awaiting the user, a conversation subscription disposed
// twice, a tool call whose cancellation token was cancelled before the call, ask after Baton closed, a core that
// failed to build, and bad arguments to asTool and on. Every failure is a BatonError whose kind says what to do.
import * as assert from 'node:assert/strict';
import type { BatonEvent, BatonEventV2 } from '../../api/baton';
import { createBatonApi } from '../../src/core/api/batonApi';
import { batonAgentTools, runTool } from '../../src/core/api/languageModelTools';
import { reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, type UnitCore } from '../support/inMemoryCore';
import { waitFor } from '../support/waitFor';
import type { PermissionBroker } from '../../src/core/workers/workerPermissions';

/** What the d.ts promises a caller: an Error named "BatonError" with this kind. */
function batonError(kind: string): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof Error, `an Error, not ${String(err)}`);
    assert.equal(err.name, 'BatonError', `a BatonError, not ${err.name}: ${err.message}`);
    assert.equal((err as { kind?: string }).kind, kind, err.message);
    return true;
  };
}

const lmClasses = {
  LanguageModelToolResult: class {
    constructor(readonly content: unknown[]) {}
  },
  LanguageModelTextPart: class {
    constructor(readonly value: string) {}
  },
};

describe('the public API at its edges', () => {
  let fixture: UnitCore;
  let closed = false;
  const start = async (overrides?: Parameters<typeof startUnitCore>[0]): Promise<UnitCore> => {
    fixture = await startUnitCore(overrides);
    return fixture;
  };
  afterEach(async () => {
    if (!fixture) return;
    fixture.sessions.assertScriptDone();
    if (!closed) await fixture.dispose();
    closed = false;
    fixture = undefined as unknown as UnitCore;
  });

  it("version 1 on('turn.completed') gets a turn that ends awaiting the user; on('turn.awaiting-input') is not version 1's", async () => {
    let asked = 0;
    const broker: PermissionBroker = {
      ask: (_prompt, signal) => {
        asked++;
        // Left open until the worker is stopped: the orchestrator's turn ends with this question waiting.
        return new Promise((resolve) => signal?.addEventListener('abort', () => resolve('deny')));
      },
    };
    const f = await start({ overrides: { broker } });
    const api = createBatonApi(() => Promise.resolve(f.core.access));
    f.sessions.script('worker', async (ctx) => {
      const spec = (ctx.session.state as unknown as { spec: { permissions(r: unknown, i: unknown): Promise<unknown> } }).spec;
      await spec.permissions({ kind: 'write', fileName: '/etc/hosts', intention: 'x', diff: '' }, { sessionId: ctx.session.id });
      await ctx.say('done');
    });
    const job = await api.getApi(2).delegate('wants permission', { folder: f.workDir });
    await waitFor('the worker asks the user', () => asked === 1);
    const completed: Array<BatonEvent & { type: 'turn.completed' }> = [];
    const notV1: unknown[] = [];
    api.on('turn.completed', (e) => completed.push(e));
    (api.on as (type: string, handler: (e: unknown) => void) => unknown)('turn.awaiting-input', (e) => notV1.push(e));
    f.sessions.script('orchestrator', reply('here is my answer'));
    const answer = await api.ask('hello');
    assert.equal(answer.status, 'complete');
    assert.deepEqual(
      completed.map((e) => [e.turnId, e.text, e.status]),
      [[answer.turnId, 'here is my answer', 'complete']],
    );
    assert.deepEqual(notV1, [], 'version 1 has no turn.awaiting-input');
    f.sessions.script('orchestrator', reply('ack'));
    await f.core.pool.kill(job.worker);
    await waitFor('the worker’s report is answered', () => f.sessions.pendingScripts === 0);
    await waitFor('idle', () => !f.core.conversations.get('main').answering);
  });

  it('a conversation subscription disposed twice leaves a later subscriber subscribed', async () => {
    const f = await start();
    const v2 = createBatonApi(() => Promise.resolve(f.core.access)).getApi(2);
    f.sessions.script('orchestrator', reply('one'), reply('two'));
    await v2.ask('create', { conversation: 'c' });
    const first = v2.conversation('c').on('*', () => undefined);
    await new Promise((r) => setTimeout(r, 10));
    first.dispose();
    const got: string[] = [];
    const second = v2.conversation('c').on('turn.completed', (e) => got.push(e.text));
    await new Promise((r) => setTimeout(r, 10));
    // Twice, as when it sits in context.subscriptions and is also disposed by hand.
    first.dispose();
    await v2.ask('hello', { conversation: 'c' });
    assert.deepEqual(got, ['two']);
    second.dispose();
  });

  it('a tool call whose token was cancelled before the call sends nothing and rejects as cancelled', async () => {
    const f = await start();
    const v2 = createBatonApi(() => Promise.resolve(f.core.access)).getApi(2);
    const tool = v2.asTool({ sessionScope: 'shared' }).languageModelTool(lmClasses);
    // A token whose listener fires only for a later cancellation.
    const silent = { isCancellationRequested: true, onCancellationRequested: () => ({ dispose: () => undefined }) };
    await assert.rejects(tool.invoke({ input: { message: 'question A' } }, silent), batonError('cancelled'));
    // VS Code's own: a listener added to a cancelled token fires a tick later (after the prompt went, before the fix).
    const vscodeLike = {
      isCancellationRequested: true,
      onCancellationRequested: (l: () => void) => {
        const t = setTimeout(l, 0);
        return { dispose: () => clearTimeout(t) };
      },
    };
    await assert.rejects(tool.invoke({ input: { message: 'question B' } }, vscodeLike), batonError('cancelled'));
    // Baton's own tools, as src/vscode/languageModelTools.ts runs them: baton_delegate starts no worker.
    const own = batonAgentTools(f.core.access).baton_delegate.languageModelTool(lmClasses);
    await assert.rejects(own.invoke({ input: { task: 'do it', folder: f.workDir } }, silent), batonError('cancelled'));
    const aborted = AbortSignal.abort();
    await assert.rejects(runTool(f.core.access, 'baton_delegate', { task: 'do it', folder: f.workDir }, aborted), batonError('cancelled'));
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(f.sessions.orchestratorPrompts, [], 'no prompt sent');
    assert.deepEqual(await v2.workers(), [], 'no worker started');
  });

  it('ask after Baton closed rejects with a BatonError of kind "cancelled", for an open or a new conversation', async () => {
    const f = await start();
    const api = createBatonApi(() => Promise.resolve(f.core.access));
    const v2 = api.getApi(2);
    f.sessions.script('orchestrator', reply('hi'));
    await v2.ask('make', { conversation: 'x' });
    await f.dispose();
    closed = true;
    await assert.rejects(v2.ask('late', { conversation: 'x' }), batonError('cancelled'));
    await assert.rejects(api.ask('late'), batonError('cancelled'));
    await assert.rejects(v2.ask('late', { conversation: 'y' }), batonError('cancelled'));
  });

  it('a core that failed to build: calls reject with a BatonError of kind "fatal", subscriptions reject nothing unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    // Mocha's own listener would fail whichever test runs when it fires; this one records it for this test.
    const mochas = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onUnhandled);
    try {
      const api = createBatonApi(() => Promise.reject(new Error('store is corrupt')));
      const v2 = api.getApi(2);
      v2.on('*', () => undefined);
      v2.conversation('x').on('*', () => undefined);
      api.on('*', () => undefined);
      await assert.rejects(v2.ask('hi'), batonError('fatal'));
      await assert.rejects(v2.conversation('x').ask('hi'), batonError('fatal'));
      await assert.rejects(api.ask('hi'), batonError('fatal'));
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(
        unhandled.map((e) => (e instanceof Error ? e.message : String(e))),
        [],
      );
    } finally {
      process.removeListener('unhandledRejection', onUnhandled);
      for (const l of mochas) process.on('unhandledRejection', l);
    }
  });

  it('bad arguments to asTool, on and conversation(id).on throw a BatonError of kind "invalid-input"', async () => {
    const f = await start();
    const v2 = createBatonApi(() => Promise.resolve(f.core.access)).getApi(2);
    const loose = v2 as unknown as {
      asTool(o: unknown): unknown;
      on(type: unknown, handler: unknown): unknown;
      conversation(id: unknown): { on(type: unknown, handler: unknown): unknown };
    };
    assert.throws(() => loose.asTool(null), batonError('invalid-input'));
    assert.throws(() => loose.asTool('fresh'), batonError('invalid-input'));
    assert.throws(() => loose.asTool({ description: 5 }), batonError('invalid-input'));
    assert.throws(() => f.core.access.asTool({ description: 5 as unknown as string }), batonError('invalid-input'));
    assert.throws(() => loose.on('*', 5), batonError('invalid-input'));
    assert.throws(() => loose.on(5, () => undefined), batonError('invalid-input'));
    assert.throws(() => loose.conversation('../etc').on('*', () => undefined), batonError('invalid-input'));
    assert.throws(() => loose.conversation(5).on('*', () => undefined), batonError('invalid-input'));
    assert.throws(() => loose.conversation('ok').on('*', 'x'), batonError('invalid-input'));
    const v1 = createBatonApi(() => Promise.resolve(f.core.access)) as unknown as { on(type: unknown, handler: unknown): unknown };
    assert.throws(() => v1.on('*', null), batonError('invalid-input'));
    const fine: BatonEventV2[] = [];
    v2.conversation('tool-ok')
      .on('*', (e) => fine.push(e))
      .dispose();
  });
});
