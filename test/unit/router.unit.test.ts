import * as assert from 'node:assert/strict';
import { DEFAULT_TIERS, ModelRouter, parseTier, type RoutingSettings, type Tier } from '../../src/core/orchestrator/router';

function settings(auto = true): RoutingSettings {
  return {
    auto,
    model: 'fixed-model',
    tiers: { ...DEFAULT_TIERS },
    overrides: [{ keywords: ['design', 'ui', 'frontend design', 'css'], tier: 'premium' }],
    cooldownMessages: 2,
  };
}

describe('ModelRouter', () => {
  const classify = (tier?: Tier) => async () => tier;

  it('uses the configured model when routing is off', async () => {
    const r = await new ModelRouter().route('anything at all, really long message', {
      settings: settings(false),
      background: false,
      classify: classify('premium'),
    });
    assert.deepEqual(r, { tier: 'fixed', model: 'fixed-model', reason: 'disabled' });
  });

  it('matches override keywords as whole words only', async () => {
    const router = new ModelRouter();
    const hit = await router.route('can you fix the UI of this dialog box', { settings: settings(), background: false, classify: classify('fast') });
    assert.deepEqual([hit.tier, hit.reason], ['premium', 'override']);
    const miss = await new ModelRouter().route('build a guide for the quickstart module', {
      settings: settings(),
      background: false,
      classify: classify('fast'),
    });
    assert.equal(miss.reason, 'classifier', '"guide" and "build" do not contain the keyword "ui" as a word');
  });

  it('answers with keywords of the wrong type in the settings: a lone text is one keyword, an item not text or blank matches nothing', async () => {
    const withKeywords = (keywords: unknown): RoutingSettings => ({ ...settings(), overrides: [{ keywords: keywords as string[], tier: 'premium' }] });
    const route = (prompt: string, keywords: unknown) =>
      new ModelRouter().route(prompt, { settings: withKeywords(keywords), background: false, classify: classify('fast') });
    const hit = await route('please design the settings page for me', 'design');
    assert.deepEqual([hit.tier, hit.reason], ['premium', 'override']);
    const miss = await route('explain how the parser handles comments', [1, null, '', '  ', { a: 1 }]);
    assert.deepEqual([miss.tier, miss.reason], ['fast', 'classifier'], 'a blank keyword does not send every message to premium');
    const still = await route('please design the settings page for me', [null, 'design']);
    assert.deepEqual([still.tier, still.reason], ['premium', 'override'], 'the good keywords still count');
  });

  it('keeps the tier for short follow-ups and uses standard for background results', async () => {
    const router = new ModelRouter({ tier: 'premium', sinceSwitch: 5 });
    const r1 = await router.route('ok', { settings: settings(), background: false, classify: classify('fast') });
    assert.deepEqual([r1.tier, r1.reason], ['premium', 'follow-up']);
    const r2 = await router.route('[Background task completed] Worker x finished', { settings: settings(), background: true, classify: classify('fast') });
    assert.deepEqual([r2.tier, r2.reason, r2.model], ['standard', 'background', DEFAULT_TIERS.standard]);
  });

  it('holds a switch for two messages after the last one (cooldown)', async () => {
    const router = new ModelRouter({ tier: 'standard', sinceSwitch: 99 });
    const opts = (tier: Tier) => ({ settings: settings(), background: false, classify: classify(tier) });
    const tiers: string[] = [];
    tiers.push((await router.route('a question that is long enough', opts('fast'))).reason);
    tiers.push((await router.route('another question long enough here', opts('premium'))).reason);
    tiers.push((await router.route('a third question long enough here', opts('premium'))).reason);
    const last = await router.route('a fourth question long enough here', opts('premium'));
    assert.deepEqual(tiers, ['classifier', 'cooldown', 'cooldown']);
    assert.deepEqual([last.tier, last.reason], ['premium', 'classifier']);
  });

  it('keeps the tier when the classifier gives no answer', async () => {
    const router = new ModelRouter({ tier: 'fast', sinceSwitch: 10 });
    const r = await router.route('something the classifier could not label in time', {
      settings: settings(),
      background: false,
      classify: async () => {
        throw new Error('timeout');
      },
    });
    assert.deepEqual([r.tier, r.reason], ['fast', 'classifier']);
  });

  it('parses the classifier reply', () => {
    assert.equal(parseTier('Premium.'), 'premium');
    assert.equal(parseTier('I think: fast'), 'fast');
    assert.equal(parseTier('no idea'), undefined);
  });
});
