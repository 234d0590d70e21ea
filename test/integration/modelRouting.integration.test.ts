// Model routing with auto on, on the real Copilot runtime and a scripted model server, built as the extension builds
// Baton: which tier and model each message goes to, and why (an override, a follow-up, a background result, the
// classifier, the cooldown).
import * as assert from 'node:assert/strict';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { ofType, timesSent } from '../support/orchestratorEvents';
import { waitFor } from '../support/waitFor';

describe('Model routing (real runtime, scripted model)', function () {
  this.timeout(60_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore();
    core.settings.routing.auto = true;
  });
  // Strict: no request the test did not script, nothing scripted left unused, no internet.
  afterEachCore(() => core);
  /** The model the last request that was not the classifier's went to. */
  const lastAnswerModel = (): string | undefined =>
    core.server
      .chatRequests()
      .filter((r) => !r.systemText.includes('You label messages'))
      .at(-1)?.model;

  it('keyword override goes to premium; short follow-ups keep the tier; background uses standard', async () => {
    // An override, a short follow-up and a background result: none of them asks the classifier.
    core.server.on({ lastUserIncludes: 'redesign the css' }, { text: 'ok' });
    core.server.on({ lastUserIncludes: '[via panel] yes' }, { text: 'ok' });
    core.server.on({ lastUserIncludes: '[Background task completed]' }, { text: 'ok' });
    const a = await core.orchestrator.enqueue('please redesign the css of the login page', { channel: 'panel' }).done;
    assert.deepEqual([a.route.tier, a.route.reason], ['premium', 'override']);
    assert.equal(core.server.chatRequests().at(-1)!.model, 'claude-opus-4.6');
    const b = await core.orchestrator.enqueue('yes', { channel: 'panel' }).done;
    assert.deepEqual([b.route.tier, b.route.reason], ['premium', 'follow-up']);
    const c = await core.orchestrator.enqueue("[Background task completed] Worker 'w' finished:\n\ndone", { channel: 'background', worker: 'w' }).done;
    assert.deepEqual([c.route.tier, c.route.reason, c.route.model], ['standard', 'background', 'claude-sonnet-4.6']);
  });

  it('the classifier picks the tier, and the cooldown holds a switch for two messages', async () => {
    core.server.on({ predicate: (r) => !r.systemText.includes('You label messages') }, ...Array.from({ length: 4 }, () => ({ text: 'answer' })));
    core.server.on({ systemIncludes: 'You label messages' }, { text: 'fast' });
    const a = await core.orchestrator.enqueue('what is the capital of france, quickly', { channel: 'panel' }).done;
    assert.deepEqual([a.route.tier, a.route.reason, a.route.model], ['fast', 'classifier', 'claude-haiku-4.5']);
    assert.equal(lastAnswerModel(), 'claude-haiku-4.5');
    core.server.on({ systemIncludes: 'You label messages' }, { text: 'premium' }, { text: 'premium' }, { text: 'premium' });
    const b = await core.orchestrator.enqueue('prove this distributed protocol correct formally', { channel: 'panel' }).done;
    assert.deepEqual([b.route.tier, b.route.reason], ['fast', 'cooldown']);
    const c = await core.orchestrator.enqueue('and write the proof in great detail please', { channel: 'panel' }).done;
    assert.deepEqual([c.route.tier, c.route.reason], ['fast', 'cooldown']);
    const d = await core.orchestrator.enqueue('then check the proof for subtle gaps in it', { channel: 'panel' }).done;
    assert.deepEqual([d.route.tier, d.route.reason, d.route.model], ['premium', 'classifier', 'claude-opus-4.6']);
    assert.equal(lastAnswerModel(), 'claude-opus-4.6');
  });

  it('a model Copilot does not offer (baton.model with a typo): the reply says which model answered instead, and where to choose', async () => {
    core.settings.routing.auto = false;
    core.settings.routing.model = 'claude-sonet-4.5';
    core.server.on({ lastUserIncludes: '[via panel] hello there' }, { text: 'Hi.' });
    const r = await core.orchestrator.enqueue('hello there', { channel: 'panel' }).done;
    const used = lastAnswerModel()!;
    assert.notEqual(used, 'claude-sonet-4.5', 'the runtime answers with its own default');
    assert.equal(r.route.model, used);
    const note = `baton.model names "claude-sonet-4.5", which Copilot does not offer here: ${used} answered instead. Choose a model with Baton: Switch Model.`;
    assert.deepEqual([r.status, r.content, r.note], ['complete', 'Hi.', note]);
    assert.equal(core.store.recentLog(1)[0]!.content, `Hi.\n\n_${note}_`, 'the panel shows it under the reply');
  });

  it('after the runtime is lost, a message routed to another tier resumes the saved session and switches its model', async () => {
    core.server.on({ lastUserIncludes: '[via panel] tell me about the queue here' }, { text: 'It runs one turn at a time.' });
    core.server.on({ systemIncludes: 'You label messages' }, { text: 'standard' });
    const a = await core.orchestrator.enqueue('tell me about the queue here', { channel: 'panel' }).done;
    assert.deepEqual([a.route.tier, a.route.model], ['standard', 'claude-sonnet-4.6']);
    const session = core.orchestrator.currentSessionId;
    process.kill(core.sessions.runtimePid()!, 'SIGKILL');
    await waitFor('Baton to see the runtime gone', () => !core.sessions.isConnected());

    // An override: premium, on another model than the saved session's.
    core.server.on({ lastUserIncludes: '[via panel] now design the css layout' }, { text: 'A two-column grid.' });
    const b = await core.orchestrator.enqueue('now design the css layout', { channel: 'panel' }).done;
    assert.deepEqual([b.status, b.content, b.route.tier, b.route.model], ['complete', 'A two-column grid.', 'premium', 'claude-opus-4.6']);
    // The saved session resumed on the new runtime and switched, as while it was live: not a new one that knows only
    // a recovery summary of the conversation.
    assert.deepEqual(
      ofType(core.events, 'session.ready').map((e) => e.how),
      ['created', 'resumed'],
    );
    assert.equal(core.orchestrator.currentSessionId, session);
    const last = core.server.chatRequests().at(-1)!;
    assert.deepEqual([last.model, last.sessionId], ['claude-opus-4.6', session]);
    assert.equal(timesSent([last], 'tell me about the queue here'), 1, 'the model sees the conversation before the loss, once');
    assert.equal(timesSent([last], 'now design the css layout'), 1);
    assert.ok(!JSON.stringify(last.messages).includes('Session recovered'), 'no recovery context');
    assert.deepEqual(ofType(core.events, 'turn.failed'), []);
  });
});
