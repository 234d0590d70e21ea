// Editing one of your sent messages, in the real webview bundle (Chromium, test/support/webviewPage.ts): Edit puts its
// text in the composer, says what sending will do and dims what it would take back; Enter posts chat/edit; Escape or
// Cancel puts back what was being typed; a refusal brings the text back; an answer beginning ends the edit. Retry on
// the newest reply to a message of yours sends that message again.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot, WebviewMessage } from '../../src/shared/protocol';
import { axeSerious } from '../support/axeInPage';
import { type WebviewPage, openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

const MESSAGES: ChatMessage[] = [
  ['user', 'name a fruit'],
  ['assistant', 'Apple.'],
  ['user', 'name a colour'],
  ['assistant', 'Blue.'],
  ['user', 'and a number'],
  ['assistant', 'Seven.'],
].map(([role, content], i) => ({ id: `log-${i + 1}`, role: role as ChatMessage['role'], content: content!, status: 'complete', ts: Date.now() }));

const SNAPSHOT: Snapshot = { conversation: 'c1', messages: MESSAGES, workers: [], permissions: [], state: STATE };

async function superseded(wp: WebviewPage): Promise<string[]> {
  return (await wp.page.evaluate(`Array.from(document.querySelectorAll('.message.superseded')).map(function (m) { return m.dataset.id; })`)) as string[];
}

async function edits(wp: WebviewPage): Promise<WebviewMessage[]> {
  return (await wp.posted()).filter((m) => m.type === 'chat/edit' || m.type === 'chat/send');
}

describe('webview: editing a sent message (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('Edit, Escape, Edit again and Enter: the composer, the bar, the dimmed messages and what is posted', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    try {
      const composer = wp.page.locator('[data-testid="composer"]');
      const bar = wp.page.locator('[data-testid="edit-bar"]');
      await wp.page.locator('[data-id="log-6"]').waitFor();
      // Offered on your messages only.
      assert.equal(await wp.page.locator('[data-testid="message-edit"]').count(), 3);
      assert.equal(await wp.page.locator('[data-id="log-2"] [data-testid="message-edit"]').count(), 0);
      await composer.fill('half a thought');

      await wp.page.locator('[data-id="log-3"]').hover();
      await wp.page.locator('[data-id="log-3"] [data-testid="message-edit"]').click();
      assert.equal(await composer.inputValue(), 'name a colour');
      assert.ok(await bar.isVisible());
      assert.match(await bar.innerText(), /Sending it takes back that message and everything after it/);
      assert.deepEqual(await superseded(wp), ['log-3', 'log-4', 'log-5', 'log-6']);
      assert.equal(await wp.page.evaluate('document.activeElement.dataset.testid'), 'composer', 'the composer has the focus');
      assert.deepEqual(await axeSerious(wp), [], 'no serious accessibility finding while editing');

      await composer.press('Escape');
      assert.equal(await composer.inputValue(), 'half a thought', 'what was being typed is back');
      assert.ok(!(await bar.isVisible()));
      assert.deepEqual(await superseded(wp), []);

      await wp.page.locator('[data-id="log-3"] [data-testid="message-edit"]').click();
      await composer.fill('name a vegetable');
      await composer.press('Enter');
      assert.deepEqual(await edits(wp), [{ type: 'chat/edit', id: 'log-3', text: 'name a vegetable' }]);
      assert.equal(await composer.inputValue(), 'half a thought', 'the draft set aside by Edit is back (webviewEditDraft)');
      assert.ok(!(await bar.isVisible()));

      // Refused by the host: the text is back, still an edit of that message, and the reason is shown.
      await wp.push({ type: 'edit/refused', seq: 2, id: 'log-3', text: 'name a vegetable', message: 'Stop the answer first.' });
      assert.equal(await composer.inputValue(), 'name a vegetable');
      assert.ok(await bar.isVisible());
      assert.match(await wp.page.locator('.context-notice').innerText(), /Not edited: Stop the answer first\./);
      assert.deepEqual(await superseded(wp), ['log-3', 'log-4', 'log-5', 'log-6']);

      // An answer begins meanwhile (a worker's result): the edit ends, what was typed before it is back, and Edit is
      // not offered until the answer ends.
      await wp.push({ type: 'state', seq: 3, state: { ...STATE, busy: true } });
      assert.ok(!(await bar.isVisible()));
      assert.deepEqual(await superseded(wp), []);
      assert.equal(await wp.page.locator('[data-id="log-1"] [data-testid="message-edit"]').evaluate((el) => getComputedStyle(el).visibility), 'hidden');
      await wp.push({ type: 'state', seq: 4, state: STATE });
      // The host's snapshot after an edit no longer has the messages taken back; a queued message has no Edit yet.
      await wp.push({
        type: 'snapshot',
        seq: 5,
        snapshot: {
          ...SNAPSHOT,
          messages: [...MESSAGES.slice(0, 2), { id: 'log-7', role: 'user', content: 'name a vegetable', status: 'pending', ts: Date.now() }],
        },
      });
      await waitInPage(wp.page, `!document.querySelector('[data-id="log-3"]')`);
      assert.equal(await wp.page.locator('[data-id="log-7"] [data-testid="message-edit"]').count(), 0);
      await wp.push({ type: 'message/update', seq: 6, id: 'log-7', patch: { status: 'complete' } });
      await wp.page.locator('[data-id="log-7"] [data-testid="message-edit"]').waitFor({ state: 'attached' });
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('the view reloaded during an edit (hidden and shown again) goes on with it: Enter edits, not sends anew; Escape gives back the draft', async () => {
    const first = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    let saved: unknown;
    try {
      await first.page.locator('[data-id="log-6"]').waitFor();
      await first.page.locator('[data-testid="composer"]').fill('half a thought');
      await first.page.locator('[data-id="log-3"]').hover();
      await first.page.locator('[data-id="log-3"] [data-testid="message-edit"]').click();
      await first.page.locator('[data-testid="composer"]').fill('name a colour you like');
      await waitInPage(first.page, `(window.__batonHost.state || {}).draft === 'name a colour you like'`);
      saved = await first.page.evaluate('window.__batonHost.state');
    } finally {
      await first.close();
    }
    for (const key of ['Enter', 'Escape'] as const) {
      const wp = await openWebviewPage(chromium.browser(), {
        build: chromium.build(),
        initialState: saved,
        replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
      });
      try {
        const composer = wp.page.locator('[data-testid="composer"]');
        await wp.page.locator('[data-id="log-6"]').waitFor();
        await wp.page.locator('[data-testid="edit-bar"]').waitFor();
        assert.deepEqual(await superseded(wp), ['log-3', 'log-4', 'log-5', 'log-6']);
        assert.equal(await composer.inputValue(), 'name a colour you like');
        await composer.press(key);
        if (key === 'Enter') assert.deepEqual(await edits(wp), [{ type: 'chat/edit', id: 'log-3', text: 'name a colour you like' }]);
        else assert.equal(await composer.inputValue(), 'half a thought', 'what was typed before the edit is back');
        assert.ok(!(await wp.page.locator('[data-testid="edit-bar"]').isVisible()));
        assert.deepEqual(wp.errors, []);
      } finally {
        await wp.close();
      }
    }
  });

  it('Edit brings back the chips the message was sent with (the draft’s set aside): Enter sends them with the edit, Escape gives the draft’s back', async () => {
    const notes = { ref: { kind: 'file' as const, path: '/ws/notes.md' }, label: 'notes.md', path: 'notes.md' };
    const withFile = MESSAGES.map((m) => (m.id === 'log-3' ? { ...m, references: [notes] } : m));
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { ...SNAPSHOT, messages: withFile } }],
    });
    try {
      const composer = wp.page.locator('[data-testid="composer"]');
      const chips = async () => wp.page.locator('[data-testid="context-chips"] [data-testid="context-chip"] .context-chip-label').allInnerTexts();
      await wp.page.locator('[data-id="log-6"]').waitFor();
      await composer.fill('half a thought');
      await wp.push({
        type: 'context/added',
        seq: 2,
        chips: [{ key: 'file:/ws/todo.md', ref: { kind: 'file', path: '/ws/todo.md' }, label: 'todo.md', detail: 'todo.md' }],
      });
      const edit = async () => {
        await wp.page.locator('[data-id="log-3"]').hover();
        await wp.page.locator('[data-id="log-3"] [data-testid="message-edit"]').click();
      };
      await edit();
      assert.deepEqual(await chips(), ['notes.md'], 'the message’s own chip, alone');
      await composer.press('Escape');
      assert.equal(await composer.inputValue(), 'half a thought');
      assert.deepEqual(await chips(), ['todo.md'], 'the draft’s chip is back');
      await edit();
      await composer.fill('name a colour, from the notes');
      await composer.press('Enter');
      assert.deepEqual(await edits(wp), [
        { type: 'chat/edit', id: 'log-3', text: 'name a colour, from the notes', references: [{ ref: { kind: 'file', path: '/ws/notes.md' } }] },
      ]);
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('switching conversations while editing ends the edit and keeps the draft with the conversation it was typed in', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    try {
      const composer = wp.page.locator('[data-testid="composer"]');
      await wp.page.locator('[data-id="log-1"]').waitFor();
      await composer.fill('typed in c1');
      await wp.page.locator('[data-id="log-1"]').hover();
      await wp.page.locator('[data-id="log-1"] [data-testid="message-edit"]').click();
      await wp.push({ type: 'snapshot', seq: 2, snapshot: { ...SNAPSHOT, conversation: 'c2', messages: [] } });
      await waitInPage(wp.page, `!document.querySelector('[data-id="log-1"]')`);
      assert.equal(await composer.inputValue(), '');
      assert.ok(!(await wp.page.locator('[data-testid="edit-bar"]').isVisible()));
      await wp.push({ type: 'snapshot', seq: 3, snapshot: SNAPSHOT });
      await wp.page.locator('[data-id="log-1"]').waitFor();
      assert.equal(await composer.inputValue(), 'typed in c1', 'the draft from before the edit, not the edited text');
      assert.deepEqual(await superseded(wp), []);
    } finally {
      await wp.close();
    }
  });

  it('Retry is offered on the newest reply to a message of yours only, and posts that message’s id; not while Baton answers', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    try {
      await wp.page.locator('[data-id="log-6"]').waitFor();
      const shown = async (): Promise<string[]> =>
        (await wp.page.evaluate(
          `Array.from(document.querySelectorAll('[data-testid="message-retry"]')).filter(function (b) { return getComputedStyle(b).display !== 'none'; }).map(function (b) { return b.closest('.message').dataset.id; })`,
        )) as string[];
      assert.deepEqual(await shown(), ['log-6']);
      await wp.page.locator('[data-id="log-6"]').hover();
      await wp.page.locator('[data-id="log-6"] [data-testid="message-retry"]').click();
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'chat/retry'),
        [{ type: 'chat/retry', id: 'log-5' }],
      );
      // A worker's result and Baton's answer to it come next: that answer is not a reply to a message of yours.
      await wp.push(
        { type: 'message/append', seq: 2, message: { id: 'log-7', role: 'background', content: 'ui-builder finished', status: 'complete', ts: Date.now() } },
        { type: 'message/append', seq: 3, message: { id: 'log-8', role: 'assistant', content: 'The worker is done.', status: 'complete', ts: Date.now() } },
      );
      await wp.page.locator('[data-id="log-8"]').waitFor();
      assert.deepEqual(await shown(), []);
      // A failed answer to a message of yours can be retried; while Baton answers, Retry is not offered.
      await wp.push(
        { type: 'message/append', seq: 4, message: { id: 'log-9', role: 'user', content: 'try again', status: 'complete', ts: Date.now() } },
        { type: 'message/append', seq: 5, message: { id: 'log-10', role: 'error', content: 'The model is unavailable.', status: 'failed', ts: Date.now() } },
      );
      await wp.page.locator('[data-id="log-10"]').waitFor();
      assert.deepEqual(await shown(), ['log-10']);
      await wp.push({ type: 'state', seq: 6, state: { ...STATE, busy: true } });
      assert.equal(await wp.page.locator('[data-id="log-10"] [data-testid="message-retry"]').evaluate((el) => getComputedStyle(el).visibility), 'hidden');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
