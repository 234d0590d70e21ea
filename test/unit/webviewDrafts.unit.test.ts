// What was typed and not sent stays with its conversation: switching conversations puts the composer's text aside and
// brings back the other one's, in the real webview bundle (Chromium, test/support/webviewPage.ts), across a reload too.
import * as assert from 'node:assert/strict';
import type { Snapshot } from '../../src/shared/protocol';
import { Drafts, MAX_DRAFTS } from '../../webview/drafts';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

function shown(conversation: string): Snapshot {
  return {
    conversation,
    messages: [{ id: `log-${conversation}`, role: 'user', content: `First message of ${conversation}`, status: 'complete', ts: Date.now() }],
    workers: [],
    permissions: [],
    state: STATE,
  };
}

interface Saved {
  draft?: string;
  draftOf?: string;
  drafts?: Record<string, string>;
}

describe('drafts per conversation', () => {
  it('keeps the drafts of at most MAX_DRAFTS other conversations, the oldest put aside going first; blank ones are none', () => {
    const drafts = new Drafts(Object.fromEntries(Array.from({ length: MAX_DRAFTS + 5 }, (_, i) => [`c${i}`, `draft ${i}`])));
    assert.equal(Object.keys(drafts.toJSON()).length, MAX_DRAFTS, 'a saved state over the bound is trimmed on load');
    assert.equal(drafts.toJSON().c0, undefined);
    assert.equal(drafts.swap('new', 'typed in new', 'c24'), 'draft 24', 'the opened conversation gets its draft back');
    assert.equal(drafts.toJSON().new, 'typed in new');
    assert.equal(drafts.toJSON().c24, undefined, 'taken out while shown');
    assert.equal(drafts.swap('c24', '   ', 'x'), '', 'none for a conversation that has none');
    assert.equal(drafts.toJSON().c24, undefined, 'a blank draft is not kept');
    assert.equal(Object.keys(new Drafts({ a: 1, b: '', c: 'ok' }).toJSON()).join(), 'c', 'what is not a draft is dropped');
    assert.deepEqual(new Drafts('garbage').toJSON(), {});
  });

  describe('in the panel (Chromium)', function () {
    this.timeout(120_000);
    const chromium = useWebviewBrowser();

    it('switching conversations puts the draft aside and brings back the other one’s; the state keeps them for a reload', async () => {
      const wp = await openWebviewPage(chromium.browser(), {
        build: chromium.build(),
        replyToReady: [{ type: 'snapshot', seq: 1, snapshot: shown('a') }],
      });
      try {
        const composer = wp.page.locator('[data-testid="composer"]');
        await wp.page.locator('[data-id="log-a"]').waitFor();
        await composer.fill('Half a question for A');
        await wp.push({ type: 'snapshot', seq: 2, snapshot: shown('b') });
        await wp.page.locator('[data-id="log-b"]').waitFor();
        assert.equal(await composer.inputValue(), '', 'B has no draft');
        await composer.fill('A thought for B');
        await wp.push({ type: 'snapshot', seq: 3, snapshot: shown('a') });
        await wp.page.locator('[data-id="log-a"]').waitFor();
        assert.equal(await composer.inputValue(), 'Half a question for A');
        // A later snapshot of the same conversation leaves what is being typed alone.
        await composer.fill('Half a question for A, longer');
        await wp.push({ type: 'snapshot', seq: 4, snapshot: shown('a') });
        assert.equal(await composer.inputValue(), 'Half a question for A, longer');
        await waitInPage(wp.page, `window.__batonHost.state && window.__batonHost.state.draft === 'Half a question for A, longer'`);
        const saved = (await wp.page.evaluate('window.__batonHost.state')) as Saved;
        assert.deepEqual([saved.draftOf, saved.drafts], ['a', { b: 'A thought for B' }]);
        assert.deepEqual(wp.errors, []);
      } finally {
        await wp.close();
      }
    });

    it('after a reload showing another conversation than the draft’s, the draft goes aside and that one’s comes back', async () => {
      const wp = await openWebviewPage(chromium.browser(), {
        build: chromium.build(),
        initialState: { draft: 'Typed in B before the reload', draftOf: 'b', drafts: { a: 'Typed in A earlier' } },
        replyToReady: [{ type: 'snapshot', seq: 1, snapshot: shown('a') }],
      });
      try {
        await wp.page.locator('[data-id="log-a"]').waitFor();
        assert.equal(await wp.page.locator('[data-testid="composer"]').inputValue(), 'Typed in A earlier');
        await waitInPage(wp.page, `window.__batonHost.state && window.__batonHost.state.draftOf === 'a'`);
        const saved = (await wp.page.evaluate('window.__batonHost.state')) as Saved;
        assert.deepEqual([saved.draft, saved.drafts], ['Typed in A earlier', { b: 'Typed in B before the reload' }]);
      } finally {
        await wp.close();
      }
    });
  });
});
