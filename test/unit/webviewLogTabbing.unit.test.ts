// Tab in the conversation, in the real webview bundle (Chromium, test/support/webviewPage.ts): the log is one tab stop,
// Tab goes through the focused message's controls and then out of the log, and Shift+Tab from the composer comes back
// to the log in one press, however many links and buttons the messages hold.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot } from '../../src/shared/protocol';
import { type WebviewPage, openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

const REPLY = 'See [the spec](https://example.com/spec).\n\n```ts\nreturn reply(401);\n```';

function conversation(pairs: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < pairs; i++) {
    out.push({ id: `q${i}`, role: 'user', content: `Question ${i}`, status: 'complete', ts: Date.now() });
    out.push({ id: `a${i}`, role: 'assistant', content: `${i}. ${REPLY}`, status: 'complete', ts: Date.now() });
  }
  return out;
}

function snapshot(messages: ChatMessage[]): Snapshot {
  return { messages, workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };
}

/** What has the focus: a test id, a message's id (`message a3`), or its tag. */
async function focus(wp: WebviewPage): Promise<string> {
  return (await wp.page.evaluate(
    `(function (el) { if (!el) return 'none'; if (el.dataset.testid === 'message') return 'message ' + el.dataset.id; var m = el.closest('.message'); return (el.dataset.testid || el.tagName.toLowerCase()) + (m ? ' in ' + m.dataset.id : ''); })(document.activeElement)`,
  )) as string;
}

async function press(wp: WebviewPage, key: string): Promise<string> {
  await wp.page.keyboard.press(key);
  return focus(wp);
}

describe('webview: Tab in the conversation (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  async function open(): Promise<WebviewPage> {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 900 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshot(conversation(6)) }],
    });
    await wp.page.locator('[data-id="a5"] .message-body code').waitFor();
    // Every reply on screen is rendered with its link, its code block's two buttons and its Copy.
    assert.ok((await wp.page.locator('.message[data-rendered] [data-testid="message-copy"]').count()) >= 3);
    return wp;
  }

  it('Shift+Tab from the composer reaches the log in one press; Tab from the log leaves it', async () => {
    const wp = await open();
    try {
      await wp.page.locator('[data-testid="composer"]').focus();
      assert.equal(await press(wp, 'Shift+Tab'), 'messages', 'not the last reply\u2019s last button');
      assert.equal(await press(wp, 'Tab'), 'composer', 'past every message\u2019s controls');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it("Tab goes through the focused message's controls and then out of the log; Shift+Tab goes back to the message, then before the log", async () => {
    const wp = await open();
    try {
      await wp.page.locator('[data-testid="messages"]').focus();
      assert.equal(await press(wp, 'End'), 'message a5');
      assert.equal(await press(wp, 'ArrowUp'), 'message q5');
      assert.equal(await press(wp, 'Tab'), 'composer', 'a question without controls: Tab leaves the log');
      await wp.page.locator('[data-testid="messages"]').focus();
      await press(wp, 'End');
      assert.equal(await press(wp, 'ArrowUp'), 'message q5');
      assert.equal(await press(wp, 'ArrowUp'), 'message a4');
      const stops: string[] = [];
      for (let i = 0; i < 5; i++) stops.push(await press(wp, 'Tab'));
      assert.deepEqual(stops, ['a in a4', 'code-copy in a4', 'code-insert in a4', 'message-copy in a4', 'composer']);
      await wp.page.locator('[data-id="a4"] a').focus();
      assert.equal(await press(wp, 'Shift+Tab'), 'message a4');
      // The stop before the log is the conversation list's toggle: not the closed list's own buttons, which are not
      // rendered, and not a control of another message.
      assert.equal(await press(wp, 'Shift+Tab'), 'conversations-toggle');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('a click on a control inside a message keeps the focus there', async () => {
    const wp = await open();
    try {
      await wp.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(wp.url).origin });
      await wp.page.locator('[data-id="a5"] [data-testid="code-copy"]').click();
      assert.equal(await focus(wp), 'code-copy in a5');
      assert.equal(await wp.page.evaluate('navigator.clipboard.readText()'), 'return reply(401);');
    } finally {
      await wp.close();
    }
  });
});
