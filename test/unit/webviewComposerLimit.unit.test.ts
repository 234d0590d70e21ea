// A text longer than a message may be (MAX_MESSAGE_LENGTH) is never cut: a paste of 150,000 characters stays whole in
// the composer, a line under it says how far over it is, and Enter or Send leaves it there, unsent, until it fits.
// In the real webview bundle (Chromium, test/support/webviewPage.ts).
import * as assert from 'node:assert/strict';
import { MAX_MESSAGE_LENGTH } from '../../src/shared/messageLimit';
import type { Snapshot } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

const SNAPSHOT: Snapshot = { conversation: 'c1', messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };

describe('webview: a message over the length limit (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('keeps a 150,000-character paste whole, says how far over it is, and sends nothing until it fits', async () => {
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }] });
    try {
      const composer = wp.page.locator('[data-testid="composer"]');
      const note = wp.page.locator('[data-testid="composer-limit"]');
      await composer.click();
      assert.equal(await note.isVisible(), false, 'no note while the text fits');
      const paste = `${'x'.repeat(149_988)}END-OF-PASTE`;
      await wp.page.keyboard.insertText(paste);
      assert.equal(await composer.inputValue(), paste, 'the paste is whole in the box');
      assert.equal(await note.isVisible(), true);
      assert.equal(await note.innerText(), '50,000 characters over the limit of 100,000: shorten the message to send it.');
      assert.equal(await composer.getAttribute('aria-invalid'), 'true');

      await wp.page.keyboard.press('Enter');
      await wp.page.locator('[data-testid="send"]').click();
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'chat/send'),
        [],
        'nothing sent, cut or whole',
      );
      assert.equal(await composer.inputValue(), paste, 'the text is still all there');
      assert.equal(await note.innerText(), '50,000 characters over the limit of 100,000: shorten the message to send it.');

      // Cut down to the limit: the note goes, and Enter sends it.
      const fits = paste.slice(50_000);
      await composer.fill(fits);
      assert.equal(fits.length, MAX_MESSAGE_LENGTH);
      assert.equal(await note.isVisible(), false);
      assert.equal(await composer.getAttribute('aria-invalid'), null);
      await composer.press('Enter');
      const sent = (await wp.posted()).filter((m) => m.type === 'chat/send');
      assert.deepEqual(
        sent.map((m) => (m.type === 'chat/send' ? m.text.length : 0)),
        [MAX_MESSAGE_LENGTH],
      );
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('says so for a draft over the limit brought back by a reload', async () => {
    const draft = 'y'.repeat(MAX_MESSAGE_LENGTH + 1);
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      initialState: { draft, draftOf: 'c1' },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    try {
      const composer = wp.page.locator('[data-testid="composer"]');
      await composer.waitFor();
      assert.equal((await composer.inputValue()).length, MAX_MESSAGE_LENGTH + 1);
      assert.equal(
        await wp.page.locator('[data-testid="composer-limit"]').innerText(),
        '1 character over the limit of 100,000: shorten the message to send it.',
      );
    } finally {
      await wp.close();
    }
  });
});
