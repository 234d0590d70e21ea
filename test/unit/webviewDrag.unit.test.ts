// Dragging onto the panel, in the real webview bundle (Chromium, test/support/webviewPage.ts): a file from the explorer
// is attached (context/drop), but a link dragged out of a reply is no file. It used to be posted as one, and the host
// answered with an error; now the browser drops its text into the composer, as into any text field.
import * as assert from 'node:assert/strict';
import type { HostMessage } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, type WebviewPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };
const content = 'See [the notes](https://example.com/notes) and [the key](file:///home/user/.ssh/id_rsa)';
const SNAPSHOT: HostMessage = {
  type: 'snapshot',
  seq: 1,
  snapshot: {
    conversation: 'c1',
    messages: [{ id: 'a1', role: 'assistant', content, status: 'complete', ts: Date.now() }],
    workers: [],
    permissions: [],
    state: STATE,
  },
};

describe('webview: drops onto the panel (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();
  let wp: WebviewPage;
  beforeEach(async () => {
    wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [SNAPSHOT] });
    await wp.page.waitForSelector('.message[data-id="a1"] a');
  });
  afterEach(async () => {
    assert.deepEqual(wp.errors, []);
    await wp.close();
  });

  it('takes a link dragged from a reply as text in the composer, not as a file to attach', async () => {
    await wp.page.dragAndDrop('.message[data-id="a1"] a >> nth=0', '[data-testid="composer"]');
    await wp.page.dragAndDrop('.message[data-id="a1"] a >> nth=1', '[data-testid="composer"]');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(
      (await wp.posted()).filter((m) => m.type === 'context/drop'),
      [],
      'nothing was asked of the host',
    );
    assert.match(await wp.page.locator('[data-testid="composer"]').inputValue(), /https:\/\/example\.com\/notes/);
    assert.equal(
      await wp.page.evaluate(`document.body.classList.contains('drop-target') || document.querySelector('.app').classList.contains('drop-target')`),
      false,
    );
  });

  it('still attaches files dropped from outside the panel', async () => {
    await wp.page.evaluate(`(function () {
      var target = document.querySelector('[data-testid="composer"]');
      var data = new DataTransfer();
      data.setData('text/uri-list', 'file:///work/a.ts');
      target.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: data }));
      target.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: data }));
    })()`);
    assert.deepEqual(
      (await wp.posted()).filter((m) => m.type === 'context/drop'),
      [{ type: 'context/drop', uris: ['file:///work/a.ts'] }],
    );
  });
});
