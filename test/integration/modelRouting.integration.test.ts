// Model routing with auto on, on the real Copilot runtime and a scripted model server, built as the extension builds
// Baton: which tier and model each message goes to, and why (an override, a follow-up, a background result, the
// classifier, the cooldown).
import * as assert from 'node:assert/strict';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';

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
});
