// The `#` list and the keys the composer shares with it, in the real webview bundle (Chromium,
// test/support/webviewPage.ts). Enter picks only what the user chose in the list (moved to, or narrowed to by typing);
// otherwise it sends, "#" and all. A key with a modifier is never the list's: Shift+Enter is a new line.
import * as assert from 'node:assert/strict';
import type { Snapshot } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, type WebviewPage } from '../support/webviewPage';

const SNAPSHOT: Snapshot = { conversation: 'c1', messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };

describe('webview: the # list and Enter (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();
  let wp: WebviewPage;
  beforeEach(async () => {
    wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }] });
    await wp.page.click('[data-testid="composer"]');
  });
  afterEach(async () => {
    assert.deepEqual(wp.errors, []);
    await wp.close();
  });
  const composer = () => wp.page.locator('[data-testid="composer"]');
  const picker = () => wp.page.locator('[data-testid="hash-picker"]');
  const sent = async () => (await wp.posted()).filter((m) => m.type !== 'ready');

  it('sends a message ending in a bare "#" with Enter, the "#" kept, and closes the list', async () => {
    await wp.page.keyboard.type('what does issue #');
    assert.equal(await picker().isVisible(), true, 'the list opened for the #');
    await wp.page.keyboard.press('Enter');
    assert.deepEqual(await sent(), [{ type: 'chat/send', text: 'what does issue #' }]);
    assert.equal(await composer().inputValue(), '');
    assert.equal(await picker().isVisible(), false);
  });

  it('adds a new line with Shift+Enter while the list is open, picking nothing', async () => {
    await wp.page.keyboard.type('tag #f');
    assert.equal(await picker().isVisible(), true);
    await wp.page.keyboard.press('Shift+Enter');
    await wp.page.keyboard.type('next line');
    assert.equal(await composer().inputValue(), 'tag #f\nnext line');
    assert.deepEqual(await sent(), [], 'nothing picked, nothing sent');
  });

  it('picks with Enter what the user narrowed the list to, or moved to with the arrows', async () => {
    await wp.page.keyboard.type('look at #fo');
    await wp.page.keyboard.press('Enter');
    assert.equal(await composer().inputValue(), 'look at ', 'the #word went with the pick');
    await wp.page.keyboard.type('#');
    await wp.page.keyboard.press('ArrowDown');
    await wp.page.keyboard.press('Enter');
    assert.deepEqual(await sent(), [
      { type: 'context/pick', kind: 'folder' },
      { type: 'context/pick', kind: 'folder' },
    ]);
    // The # button opens the list to pick from: Enter picks its first kind.
    await wp.page.click('[data-testid="attach"]');
    await wp.page.keyboard.press('Enter');
    assert.deepEqual((await sent()).at(-1), { type: 'context/pick', kind: 'file' });
    assert.equal(await composer().inputValue(), 'look at ');
  });
});
