// A message the host refused to send comes back into the composer, in the real webview bundle (Chromium,
// test/support/webviewPage.ts): its text and its chips, with the reason shown and announced; never over a message
// being written meanwhile. (An edit refused: webviewEdit; a queued message taken out: webviewQueued.)
import * as assert from 'node:assert/strict';
import { MAX_REFERENCES, type Snapshot } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const SNAPSHOT: Snapshot = { conversation: 'c1', messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };
const chip = { key: 'file:/w/big.log', ref: { kind: 'file' as const, path: '/w/big.log' }, label: 'big.log', detail: 'big.log' };

describe('webview: a message refused by the host (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('with every chip the host takes, the active editor does not ride along as one too many (the host refused the whole message)', async () => {
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }] });
    try {
      const composer = wp.page.locator('[data-testid="composer"]');
      await composer.waitFor();
      const chips = Array.from({ length: MAX_REFERENCES }, (_, i) => ({
        ...chip,
        key: `file:/w/f${i}.ts`,
        ref: { kind: 'file' as const, path: `/w/f${i}.ts` },
        label: `f${i}.ts`,
      }));
      await wp.push({ type: 'context/added', seq: 2, chips });
      await wp.push({
        type: 'context/implicit',
        seq: 3,
        chip: { ...chip, key: 'file:/w/open.ts', ref: { kind: 'file', path: '/w/open.ts' }, label: 'open.ts' },
      });
      await composer.fill('read them all');
      await composer.press('Enter');
      const sent = (await wp.posted()).filter((m) => m.type === 'chat/send');
      assert.equal(sent.length, 1);
      const refs = sent[0]!.type === 'chat/send' ? (sent[0]!.references ?? []) : [];
      assert.equal(refs.length, MAX_REFERENCES);
      assert.ok(!refs.some((r) => r.implicit), 'the active editor stayed out');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('comes back with its chips and the reason; after what is being written, never lost, with its own chips', async () => {
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }] });
    try {
      const composer = wp.page.locator('[data-testid="composer"]');
      const bar = wp.page.locator('[data-testid="context-bar"]');
      await composer.waitFor();
      await wp.push({ type: 'context/added', seq: 2, chips: [chip] });
      await composer.fill('summarize this log');
      await composer.press('Enter');
      const sent = (await wp.posted()).filter((m) => m.type === 'chat/send');
      assert.deepEqual(sent, [{ type: 'chat/send', text: 'summarize this log', references: [{ ref: chip.ref }] }]);
      assert.equal(await composer.inputValue(), '');
      assert.doesNotMatch(await bar.innerText(), /big\.log/, 'the chip went with the message');

      await wp.push({ type: 'chat/refused', seq: 3, text: 'summarize this log', kind: 'unreadable', message: 'big.log is larger than 1 MB.' });
      assert.equal(await composer.inputValue(), 'summarize this log');
      assert.match(await bar.innerText(), /big\.log/);
      assert.match(await bar.innerText(), /Not sent: big\.log is larger than 1 MB\./);
      await waitInPage(wp.page, `document.querySelector('[data-testid="announcer"]').textContent.includes('Not sent: big.log')`);

      // Refused while another message is being written (a slow read; a plain message sent after it): that one stays,
      // the refused one comes after it, with its own chips, not the last message's (its text is its only copy).
      await composer.press('Enter');
      await composer.fill('a plain one');
      await composer.press('Enter');
      await composer.fill('something else');
      await wp.push({ type: 'chat/refused', seq: 4, text: 'summarize this log', kind: 'unreadable', message: 'big.log is larger than 1 MB.' });
      assert.equal(await composer.inputValue(), 'something else\n\nsummarize this log');
      assert.match(await bar.innerText(), /big\.log/);
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
