// The first page in the webview's HTML (see firstPage in src/shared/protocol.ts), in the real webview bundle (Chromium,
// test/support/webviewPage.ts serves the page as the extension writes it): the newest messages show before the host
// answers `ready`; its answer, the whole snapshot, brings the older ones without building twice what is shown, and
// nothing that came between the two is lost.
import * as assert from 'node:assert/strict';
import { firstPage, FIRST_PAGE_MESSAGES, type ChatMessage, type HostMessage, type Snapshot } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, type WebviewPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

function history(count: number, prefix = 'm'): ChatMessage[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? { id: `${prefix}${i}`, role: 'user' as const, content: `Question ${prefix}${i}`, status: 'complete' as const, ts: 1_700_000_000_000 + i * 60_000 }
      : {
          id: `${prefix}${i}`,
          role: 'assistant' as const,
          content: `Answer ${prefix}${i}.\n\n- one\n- two\n\n\`\`\`ts\nconst n = ${i};\n\`\`\``,
          status: 'complete' as const,
          ts: 1_700_000_000_000 + i * 60_000,
        },
  );
}

function snapshotOf(messages: ChatMessage[], conversation = 'c1'): Snapshot {
  return {
    messages,
    workers: [],
    permissions: [],
    state: STATE,
    conversation,
    conversations: [
      { id: 'c1', title: 'The long one', lastActivity: 2, messages: messages.length, busy: false, unread: false },
      { id: 'c2', title: 'Another one', lastActivity: 1, messages: 2, busy: false, unread: false },
    ],
  };
}

/** Where the list stands, for a timeout's message: a flake under load then says what the reader would have seen. */
const LIST_STATE = `(function (s) { return 'scrollTop ' + (s ? s.scrollTop : '?') + ', ' + document.querySelectorAll('[data-testid="message"]').length + ' messages'; })(document.querySelector('.scroller'))`;

/** Polls in Node (a string predicate in the page would need eval, which the page's CSP refuses). */
async function until(wp: WebviewPage, expression: string, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await wp.page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${String(await wp.page.evaluate(LIST_STATE))})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const FROM_BOTTOM = `(function (s) { return s.scrollHeight - s.scrollTop - s.clientHeight; })(document.querySelector('.scroller'))`;

/** Message `id` starts `offset` px above the top of the view (±2 px): the reader sees the same text there. */
function readingAt(id: string, offset: number): string {
  return `(function (s, el) { return !!el && Math.abs(s.getBoundingClientRect().top - el.getBoundingClientRect().top - ${offset}) <= 2; })(document.querySelector('.scroller'), document.querySelector('[data-id="${id}"]'))`;
}

/** The first message reaching the top of the view, and how many px of it are above it. */
const TOP_MESSAGE = `(function (s) { var top = s.getBoundingClientRect().top; var el = Array.from(document.querySelectorAll('[data-testid="message"]')).find(function (m) { return m.getBoundingClientRect().bottom > top; }); return { id: el.dataset.id, offset: Math.round(top - el.getBoundingClientRect().top) }; })(document.querySelector('.scroller'))`;

/** `expression` becomes true and is still true a second later, once the messages around it have rendered. */
async function stays(wp: WebviewPage, expression: string, what: string): Promise<void> {
  await until(wp, expression, what);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await wp.page.evaluate(expression), true, `${what}, still (${String(await wp.page.evaluate(LIST_STATE))})`);
}

const IDS = `Array.from(document.querySelectorAll('[data-testid="message"]')).map(function (el) { return el.dataset.id; })`;
const READY_COUNT = `window.__batonHost.posted.filter(function (m) { return m.type === 'ready'; }).length`;

describe('webview: the first page in the HTML (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('shows the newest messages before ready is answered; the answer brings the older ones and keeps what is shown', async () => {
    const all = history(1000);
    const full = snapshotOf(all);
    // The host has not answered yet: nothing replies to ready.
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(full) } });
    try {
      await until(wp, 'window.__batonHost.firstPaintAt !== undefined', 'the first paint');
      assert.deepEqual(
        await wp.page.evaluate(IDS),
        all.slice(-FIRST_PAGE_MESSAGES).map((m) => m.id),
        'the newest page, in order',
      );
      assert.equal(await wp.page.evaluate(`document.querySelector('[data-id="m999"]').hasAttribute('data-rendered')`), true, 'the newest is rendered');
      assert.equal(await wp.page.evaluate(`document.querySelector('[data-testid="conversations-current"]').textContent`), 'The long one');
      await until(wp, `${READY_COUNT} === 1`, 'ready, once the page is painted');

      // Tag the newest message's element: the whole snapshot must keep it, not build it again.
      await wp.page.evaluate(`document.querySelector('[data-id="m999"]').dataset.kept = 'yes'`);
      await wp.push({ type: 'snapshot', seq: 2, snapshot: full });
      await until(wp, `document.querySelectorAll('[data-testid="message"]').length >= 1000`, 'every message');
      assert.deepEqual(
        await wp.page.evaluate(IDS),
        all.map((m) => m.id),
        'all 1,000, once each, in order',
      );
      assert.equal(await wp.page.evaluate(`document.querySelector('[data-id="m999"]').dataset.kept`), 'yes', 'the newest message kept its DOM');
      assert.equal(await wp.page.evaluate(`window.__batonHost.posted.filter(function (m) { return m.type === 'snapshot/request'; }).length`), 0);
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), [], 'the JSON island needs nothing the CSP refuses');
    } finally {
      await wp.close();
    }
  });

  it('loses nothing that arrives between the page and the snapshot, and shows it once', async () => {
    const all = history(100);
    const reply: ChatMessage = { id: 'new', role: 'assistant', content: 'Arrived while the page loaded', status: 'complete', ts: 1_800_000_000_000 };
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(snapshotOf(all)) },
    });
    try {
      await until(wp, `${READY_COUNT} === 1`, 'ready');
      // Posted by the host after the page was written (seq 2), then the answer to ready, which has it too.
      await wp.push({ type: 'message/append', seq: 2, message: reply });
      await until(wp, `!!document.querySelector('[data-id="new"]')`, 'the new message');
      await wp.push({ type: 'snapshot', seq: 3, snapshot: snapshotOf([...all, reply]) });
      await until(wp, `document.querySelectorAll('[data-testid="message"]').length >= 101`, 'every message');
      const ids = (await wp.page.evaluate(IDS)) as string[];
      assert.deepEqual(ids, [...all.map((m) => m.id), 'new']);
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('shows the conversation the answer to ready is about, when the user switched during the open', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(snapshotOf(history(100))) },
      replyToReady: [{ type: 'snapshot', seq: 2, snapshot: snapshotOf(history(2, 'other'), 'c2') }],
    });
    try {
      await until(wp, `document.querySelectorAll('[data-testid="message"]').length === 2`, 'the other conversation');
      assert.deepEqual(await wp.page.evaluate(IDS), ['other0', 'other1']);
      assert.equal(await wp.page.evaluate(`document.querySelector('[data-testid="conversations-current"]').textContent`), 'Another one');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('after a reload, shows the same conversation with the message the reader was reading at the top, where they were in it', async () => {
    const all = history(300);
    const full = snapshotOf(all);
    const open = (initialState: unknown, viewport = { width: 420, height: 800 }): Promise<WebviewPage> =>
      openWebviewPage(chromium.browser(), {
        build: chromium.build(),
        viewport,
        firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(full) },
        replyToReady: [{ type: 'snapshot', seq: 2, snapshot: full }],
        initialState,
      });
    // What the panel saved before the reload (vscode.setState): scrolled up, 12 px into message m40.
    const wp = await open({ scrollTop: 1500, pinned: false, anchor: { id: 'm40', offset: 12 } });
    try {
      await until(wp, `document.querySelectorAll('[data-testid="message"]').length >= 300`, 'every message');
      // The messages above it render after the restore, at heights other than their estimates: m40 stays put.
      await stays(wp, readingAt('m40', 12), 'm40 at the top of the view, 12 px into it');
      assert.ok(((await wp.page.evaluate(FROM_BOTTOM)) as number) > 10_000, 'far from the bottom the first page showed');
      assert.deepEqual(
        await wp.page.evaluate(IDS),
        all.map((m) => m.id),
      );

      // The reader moves on, down to about m120; what the panel saves is the message then at the top, and how far into it.
      await wp.page.locator('.scroller').hover();
      await wp.page.mouse.wheel(0, 400);
      await wp.page.evaluate(
        `(function (s, el) { s.scrollTop += el.getBoundingClientRect().top - s.getBoundingClientRect().top + 30; })(document.querySelector('.scroller'), document.querySelector('[data-id="m120"]'))`,
      );
      await until(
        wp,
        `(function (a, top) { return !!a && a.id === top.id && Math.abs(a.offset - top.offset) <= 2; })((window.__batonHost.state || {}).anchor, ${TOP_MESSAGE})`,
        'the message at the top saved as the place',
      );
      const place = (await wp.page.evaluate(TOP_MESSAGE)) as { id: string; offset: number };
      assert.ok(Number(place.id.slice(1)) > 100, `far below m40 (${place.id})`);
      // Restored from what the panel saved, which may be a px or two from `place` (the wait above allows it): checked
      // against `place` itself, the two tolerances add up, and an exact restore could read 3 px off.
      const saved = (await wp.page.evaluate('window.__batonHost.state')) as { anchor: { id: string; offset: number } };
      assert.equal(saved.anchor.id, place.id);
      assert.ok(Math.abs(saved.anchor.offset - place.offset) <= 2, `saved ${saved.anchor.offset} px into ${place.id}, read ${place.offset}`);
      // A reload of the page (as VS Code does when the view is shown again): the same conversation, from its page.
      await wp.page.reload({ waitUntil: 'load' });
      await until(wp, `document.querySelectorAll('[data-testid="message"]').length >= 300`, 'every message after the reload');
      assert.deepEqual(
        await wp.page.evaluate(IDS),
        all.map((m) => m.id),
      );
      assert.equal(await wp.page.evaluate(`document.querySelector('[data-testid="conversations-current"]').textContent`), 'The long one');
      assert.deepEqual(wp.errors, []);

      // Reopened in a narrower panel, where every line wraps differently and no scroll offset would find it: the same place.
      const narrow = await open(saved, { width: 300, height: 800 });
      try {
        await until(narrow, `document.querySelectorAll('[data-testid="message"]').length >= 300`, 'every message, narrower');
        await stays(narrow, readingAt(saved.anchor.id, saved.anchor.offset), `${place.id} at the top of the narrower view, ${saved.anchor.offset} px into it`);
        assert.deepEqual(narrow.errors, []);
      } finally {
        await narrow.close();
      }
    } finally {
      await wp.close();
    }
  });

  it('a place saved by an earlier version (a scroll offset alone) is restored from it: scrolled up, not at the bottom', async () => {
    const full = snapshotOf(history(300));
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(full) },
      replyToReady: [{ type: 'snapshot', seq: 2, snapshot: full }],
      initialState: { scrollTop: 1500, pinned: false },
    });
    try {
      await until(wp, `document.querySelectorAll('[data-testid="message"]').length >= 300`, 'every message');
      await until(wp, `document.querySelector('.scroller').scrollTop > 1000`, 'the saved offset');
      assert.ok(((await wp.page.evaluate(FROM_BOTTOM)) as number) > 10_000, 'far from the bottom the first page showed');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('says ready at once when the page in the HTML is not a snapshot, and shows what the host answers', async () => {
    const notASnapshot: HostMessage = { type: 'composer/focus', seq: 1 };
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      firstPage: notASnapshot,
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshotOf(history(4)) }],
    });
    try {
      await until(wp, `document.querySelectorAll('[data-testid="message"]').length === 4`, 'the snapshot');
      assert.equal(await wp.page.evaluate(READY_COUNT), 1);
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
