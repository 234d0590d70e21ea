// What was being typed when Edit was clicked is only set aside, never lost, in the real webview bundle (Chromium,
// test/support/webviewPage.ts): once the edit is sent it is back in the composer with its chips; when the host refuses
// the edit, the edit goes on and Escape gives the draft back. Both survive a reload of the view (the webview state).
import * as assert from 'node:assert/strict';
import type { ChatMessage, ReferenceChip, Snapshot, WebviewMessage } from '../../src/shared/protocol';
import type { UiState } from '../../webview/vscodeApi';
import { type WebviewPage, openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };
const DRAFT = 'a long draft I was writing';
const NOTES = { ref: { kind: 'file' as const, path: '/ws/notes.md' }, label: 'notes.md', path: 'notes.md' };
const TODO: ReferenceChip = { key: 'file:/ws/todo.md', ref: { kind: 'file', path: '/ws/todo.md' }, label: 'todo.md', detail: 'todo.md' };

const MESSAGES: ChatMessage[] = [
  ['user', 'name a fruit'],
  ['assistant', 'Apple.'],
  ['user', 'name a colour'],
  ['assistant', 'Blue.'],
].map(([role, content], i) => ({ id: `log-${i + 1}`, role: role as ChatMessage['role'], content: content!, status: 'complete', ts: Date.now() }));

// log-3 was sent with notes.md: editing it brings that chip, the draft's (todo.md) is set aside with the draft.
const SNAPSHOT: Snapshot = {
  conversation: 'c1',
  messages: MESSAGES.map((m) => (m.id === 'log-3' ? { ...m, references: [NOTES] } : m)),
  workers: [],
  permissions: [],
  state: STATE,
};

const composerOf = (wp: WebviewPage) => wp.page.locator('[data-testid="composer"]');
const editBar = (wp: WebviewPage) => wp.page.locator('[data-testid="edit-bar"]');
const chipsOf = (wp: WebviewPage) => wp.page.locator('[data-testid="context-chips"] [data-testid="context-chip"] .context-chip-label').allInnerTexts();

async function open(chromium: ReturnType<typeof useWebviewBrowser>, initialState?: unknown): Promise<WebviewPage> {
  const wp = await openWebviewPage(chromium.browser(), {
    build: chromium.build(),
    viewport: { width: 420, height: 700 },
    initialState,
    replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
  });
  await wp.page.locator('[data-id="log-4"]').waitFor();
  return wp;
}

/** Types the draft with its chip, edits log-3 into "name a vegetable" and sends the edit. */
async function draftThenSendEdit(wp: WebviewPage): Promise<void> {
  const composer = composerOf(wp);
  await composer.fill(DRAFT);
  await wp.push({ type: 'context/added', seq: 2, chips: [TODO] });
  await wp.page.locator('[data-id="log-3"]').hover();
  await wp.page.locator('[data-id="log-3"] [data-testid="message-edit"]').click();
  assert.equal(await composer.inputValue(), 'name a colour');
  assert.deepEqual(await chipsOf(wp), ['notes.md']);
  await composer.fill('name a vegetable');
  await composer.press('Enter');
  const sent = (await wp.posted()).filter((m: WebviewMessage) => m.type === 'chat/edit' || m.type === 'chat/send');
  assert.deepEqual(sent, [{ type: 'chat/edit', id: 'log-3', text: 'name a vegetable', references: [{ ref: NOTES.ref }] }]);
}

/** The webview state once its debounced save has caught up with `check` (a page expression on `s`). */
async function savedState(wp: WebviewPage, check: string): Promise<UiState> {
  await waitInPage(wp.page, `(function (s) { return !!s && (${check}); })(window.__batonHost.state)`);
  return (await wp.page.evaluate('window.__batonHost.state')) as UiState;
}

describe('webview: the draft set aside by Edit (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('comes back with its chips once the edit is sent, and stays through the answer and a reload', async () => {
    let saved: UiState;
    const wp = await open(chromium);
    try {
      const composer = composerOf(wp);
      await draftThenSendEdit(wp);
      assert.equal(await composer.inputValue(), DRAFT, 'the draft is back as soon as the edit is sent');
      assert.deepEqual(await chipsOf(wp), ['todo.md'], 'with its chip');
      assert.ok(!(await editBar(wp).isVisible()));

      // The host accepts: the messages taken back are gone, the new one is answered.
      await wp.push({
        type: 'snapshot',
        seq: 3,
        snapshot: {
          ...SNAPSHOT,
          messages: [...MESSAGES.slice(0, 2), { id: 'log-7', role: 'user', content: 'name a vegetable', status: 'complete', ts: Date.now() }],
        },
      });
      await waitInPage(wp.page, `!document.querySelector('[data-id="log-3"]')`);
      await wp.push({ type: 'state', seq: 4, state: { ...STATE, busy: true } }, { type: 'state', seq: 5, state: STATE });
      assert.equal(await composer.inputValue(), DRAFT);
      assert.deepEqual(await chipsOf(wp), ['todo.md']);
      saved = await savedState(wp, `s.draft === ${JSON.stringify(DRAFT)} && !s.editing`);
      assert.deepEqual(
        saved.chips?.map((c) => c.label),
        ['todo.md'],
      );
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }

    const reloaded = await open(chromium, saved);
    try {
      assert.equal(await composerOf(reloaded).inputValue(), DRAFT, 'the draft survives a reload');
      assert.deepEqual(await chipsOf(reloaded), ['todo.md']);
      assert.ok(!(await editBar(reloaded).isVisible()));
      assert.deepEqual(reloaded.errors, []);
    } finally {
      await reloaded.close();
    }
  });

  it('an edit the host refuses goes on as an edit, the draft set aside again: Escape gives it back, after a reload too', async () => {
    let saved: UiState;
    const wp = await open(chromium);
    try {
      const composer = composerOf(wp);
      await draftThenSendEdit(wp);
      // Typed on while the host decides: that is part of what the composer held, and comes back with it.
      await composer.press('End');
      await composer.type(', continued');
      await wp.push({ type: 'edit/refused', seq: 3, id: 'log-3', text: 'name a vegetable', message: 'Stop the answer first.' });
      assert.equal(await composer.inputValue(), 'name a vegetable', 'the refused edit’s text, not appended to the draft');
      assert.deepEqual(await chipsOf(wp), ['notes.md']);
      assert.ok(await editBar(wp).isVisible(), 'still an edit');
      saved = await savedState(wp, `s.draft === 'name a vegetable' && !!s.editing`);
      assert.equal(saved.editing?.draft, `${DRAFT}, continued`);

      await composer.press('Escape');
      assert.equal(await composer.inputValue(), `${DRAFT}, continued`, 'Escape gives the draft back');
      assert.deepEqual(await chipsOf(wp), ['todo.md']);
      assert.ok(!(await editBar(wp).isVisible()));
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }

    const reloaded = await open(chromium, saved);
    try {
      const composer = composerOf(reloaded);
      await editBar(reloaded).waitFor();
      assert.equal(await composer.inputValue(), 'name a vegetable');
      assert.deepEqual(await chipsOf(reloaded), ['notes.md']);
      await composer.press('Escape');
      assert.equal(await composer.inputValue(), `${DRAFT}, continued`, 'the draft survives a reload during the refused edit');
      assert.deepEqual(await chipsOf(reloaded), ['todo.md']);
      assert.deepEqual(reloaded.errors, []);
    } finally {
      await reloaded.close();
    }
  });
});
