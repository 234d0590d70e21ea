// Routing decides on what the user typed, not on the prompt as sent: the channel tag hid short follow-ups from the
// anchored check, and keyword overrides fired on the paths and contents of attached files.
import * as assert from 'node:assert/strict';
import { reply } from '../support/inMemoryAgentSessions';
import { eachUnitCore, type UnitCore } from '../support/inMemoryCore';

describe('routing on the typed text (in-memory runtime)', () => {
  let f: UnitCore;
  eachUnitCore((core) => (f = core));

  beforeEach(() => {
    f.settings.routing.auto = true;
    f.settings.routing.overrides = [{ keywords: ['design', 'ui', 'css'], tier: 'premium' }];
  });

  const classified = (): string[] => f.sessions.runs.filter((r) => r.role === 'classifier').map((r) => r.prompt);

  it('"continue" typed in the panel is a follow-up: the tier stays, the classifier is not asked', async () => {
    f.sessions.script('classifier', reply('standard'));
    f.sessions.script('orchestrator', reply('a1'), reply('a2'));
    const a = await f.core.orchestrator.enqueue('please explain the retry policy of this module', { channel: 'panel' }).done;
    assert.deepEqual([a.route.tier, a.route.reason], ['standard', 'classifier']);
    const b = await f.core.orchestrator.enqueue('continue', { channel: 'panel' }).done;
    assert.deepEqual([b.route.tier, b.route.reason], ['standard', 'follow-up']);
    assert.equal(classified().length, 1);
    assert.ok(classified()[0]!.endsWith('\nplease explain the retry policy of this module'), 'the classifier sees the typed text, untagged');
  });

  it('a keyword in an attached file does not override; the classifier sees only what was typed', async () => {
    f.sessions.script('classifier', reply('fast'));
    f.sessions.script('orchestrator', reply('a1'));
    const context = 'Attached file src/ui/button.css:\n.button { color: red }';
    const a = await f.core.orchestrator.enqueue('what does this function return exactly?', { channel: 'chat' }, { context }).done;
    assert.deepEqual([a.route.tier, a.route.reason], ['fast', 'classifier']);
    assert.ok(classified()[0]!.endsWith('\nwhat does this function return exactly?'), classified()[0]);
    assert.ok(f.sessions.orchestratorPrompts[0]!.includes(context), 'the context still goes to the model');
  });

  it('a keyword the user typed still overrides, with context attached', async () => {
    f.sessions.script('orchestrator', reply('a1'));
    const a = await f.core.orchestrator.enqueue('redesign the css of this page', { channel: 'panel' }, { context: 'Attached file a.ts:\nx' }).done;
    assert.deepEqual([a.route.tier, a.route.reason], ['premium', 'override']);
  });
});
