// The panel's model on the host side: snapshots from the store, validation of webview messages,
// permission prompts. The orchestrator is real but never sends anything here.
import * as assert from 'node:assert/strict';
import { toChatMessage } from '../../src/core/chat/chatController';
import type { ChatController } from '../../src/core/chat/chatController';
import type { BatonStore } from '../../src/core/store/types';
import { FIRST_PAGE_MESSAGES, type HostMessage } from '../../src/shared/protocol';
import { startUnitCore, type UnitCore } from '../support/inMemoryCore';

describe('ChatController', () => {
  let fixture: UnitCore;
  let store: BatonStore;
  let chat: ChatController;
  let posted: HostMessage[];
  let calls: string[];

  beforeEach(async () => {
    calls = [];
    // The production wiring (createBatonCore) with the runtime in memory: nothing here is ever sent.
    fixture = await startUnitCore({
      overrides: {
        host: {
          openLink: (h) => calls.push(`link ${h}`),
          insertCode: (c) => calls.push(`insert ${c}`),
          runCommand: (c) => calls.push(`command ${c}`),
          toggleRouting: () => calls.push('toggle'),
          openWorker: (n) => calls.push(`worker ${n}`),
        },
      },
    });
    adopt();
  });
  function adopt(): void {
    ({ store, chat } = fixture.core);
    posted = [];
    chat.onDidPost((m) => posted.push(m));
  }
  /** A window reload over the same storage: what the previous window left is read back. */
  async function reload(): Promise<void> {
    await fixture.restart();
    adopt();
  }
  afterEach(async () => {
    assert.deepEqual(fixture.sessions.runs, [], 'nothing reached the runtime');
    await fixture.dispose();
  });

  it('answers ready with a snapshot of the stored history, interrupted turns marked', async () => {
    store.appendLog({ role: 'user', content: 'earlier question', source: 'panel', status: 'complete' });
    store.appendLog({
      role: 'assistant',
      content: 'earlier answer',
      source: 'panel',
      status: 'complete',
      meta: JSON.stringify({ route: { tier: 'fixed', model: 'm', reason: 'disabled' }, usage: { inputTokens: 10, outputTokens: 3 } }),
    });
    store.appendLog({ role: 'user', content: 'cut off by a reload', source: 'panel', status: 'pending' });
    await reload();
    chat.receive({ type: 'ready' });
    const snap = posted.at(-1);
    assert.equal(snap?.type, 'snapshot');
    if (snap?.type !== 'snapshot') return;
    assert.deepEqual(
      snap.snapshot.messages.map((m) => [m.role, m.content, m.status]),
      [
        ['user', 'earlier question', 'complete'],
        ['assistant', 'earlier answer', 'complete'],
        ['user', 'cut off by a reload', 'interrupted'],
      ],
    );
    assert.deepEqual(snap.snapshot.messages[1].usage, { inputTokens: 10, outputTokens: 3 });
    assert.equal(snap.snapshot.state.busy, false);
  });

  it('sets aside worker results a crash left in the queue, so their re-delivery is the only copy shown', async () => {
    store.appendLog({ role: 'system', content: "[Background task completed] Worker 'w' finished", source: 'background:w', status: 'pending' });
    await reload();
    chat.receive({ type: 'ready' });
    const snap = posted.at(-1);
    assert.ok(snap?.type === 'snapshot');
    if (snap?.type !== 'snapshot') return;
    assert.equal(snap.snapshot.messages.length, 0);
    assert.equal(store.recentLog(1)[0].status, 'cancelled');
  });

  it('logs and ignores bad messages from the webview, numbering what it posts', () => {
    for (const bad of [
      null,
      42,
      'ready',
      { type: 'nope' },
      { type: 'chat/send' },
      { type: 'chat/send', text: '' },
      { type: 'permission/answer', id: 'x', decision: 'always' },
      { type: 'command/run', command: 'workbench.action.quit' },
    ]) {
      chat.receive(bad);
    }
    assert.equal(posted.length, 0);
    assert.equal(calls.length, 0);
    assert.ok(fixture.logger.lines.filter((l) => l.includes('Ignored a bad message')).length >= 8);
    chat.receive({ type: 'ready' });
    chat.receive({ type: 'snapshot/request' });
    assert.deepEqual(
      posted.map((m) => m.seq),
      [1, 2],
    );
  });

  it('a message from the composer that does not pass (too many references) comes back to it with why, instead of vanishing', () => {
    const references = Array.from({ length: 21 }, (_, i) => ({ ref: { kind: 'file' as const, path: `/w/f${i}.ts` } }));
    chat.receive({ type: 'chat/send', text: 'read these', references });
    assert.equal(posted.length, 1);
    const back = posted[0]!;
    assert.ok(back.type === 'chat/refused' && back.text === 'read these' && /^references/.test(back.message), JSON.stringify(back));
    assert.equal(calls.length, 0, 'nothing was queued');
  });

  it('refuses a blank message (spaces, NULs, zero-width characters): nothing runs, the composer is told why', async () => {
    for (const text of ['   \n\t ', '\u0000\u0000', ' \u200B\uFEFF ']) {
      posted = [];
      chat.receive({ type: 'chat/send', text });
      assert.equal(posted.length, 1, JSON.stringify(text));
      const back = posted[0]!;
      assert.ok(back.type === 'chat/refused' && back.text === text && /nothing to read/.test(back.message), JSON.stringify(back));
    }
    posted = [];
    chat.receive({ type: 'chat/edit', id: 'log-1', text: '  ' });
    assert.ok(posted[0]?.type === 'edit/refused' && posted[0].id === 'log-1' && /nothing to read/.test(posted[0].message), JSON.stringify(posted));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(store.recentLog(5), [], 'nothing was logged as sent');
    assert.equal(calls.length, 0);
  });

  it("gives the webview's HTML the newest page, numbered before what it posts next; the answer to ready has them all", async () => {
    for (let i = 0; i < 60; i++) store.appendLog({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}`, source: 'panel', status: 'complete' });
    await reload();
    const page = chat.firstPage();
    assert.equal(page.type, 'snapshot');
    if (page.type !== 'snapshot') return;
    assert.equal(page.snapshot.older, 60 - FIRST_PAGE_MESSAGES);
    assert.deepEqual(
      page.snapshot.messages.map((m) => m.content),
      Array.from({ length: FIRST_PAGE_MESSAGES }, (_, k) => `message ${60 - FIRST_PAGE_MESSAGES + k}`),
    );
    assert.equal(page.snapshot.conversation, fixture.core.conversations.activeId);
    assert.equal(posted.length, 0, 'the page goes into the HTML, not through the message channel');
    chat.receive({ type: 'ready' });
    const snap = posted.at(-1);
    assert.ok(snap?.type === 'snapshot');
    if (snap?.type !== 'snapshot') return;
    assert.equal(snap.seq, page.seq + 1, 'numbered after the page: nothing between them looks like a gap');
    assert.equal(snap.snapshot.older, undefined);
    assert.equal(snap.snapshot.messages.length, 60);
    assert.deepEqual(snap.snapshot.messages.slice(-FIRST_PAGE_MESSAGES), page.snapshot.messages, 'the same newest messages, field for field');
  });

  it('routes UI intents to the host actions', () => {
    chat.receive({ type: 'link/open', href: 'https://example.invalid/docs' });
    chat.receive({ type: 'code/insert', code: 'let x = 1;' });
    chat.receive({ type: 'command/run', command: 'baton.setProviderKey' });
    chat.receive({ type: 'routing/toggle' });
    chat.receive({ type: 'worker/open', name: 'auth-fix' });
    assert.deepEqual(calls, ['link https://example.invalid/docs', 'insert let x = 1;', 'command baton.setProviderKey', 'toggle', 'worker auth-fix']);
  });

  it("shows a permission prompt and resolves it with the user's answer", async () => {
    const answer = chat.askPermission({ worker: 'w', kind: 'shell', detail: 'rm -rf build' });
    const request = posted.at(-1);
    assert.equal(request?.type, 'permission/request');
    if (request?.type !== 'permission/request') return;
    chat.receive({ type: 'ready' });
    const snap = posted.at(-1);
    assert.ok(snap?.type === 'snapshot' && snap.snapshot.permissions.length === 1, 'pending prompts survive a panel reload');
    chat.receive({ type: 'permission/answer', id: request.request.id, decision: 'once' });
    assert.equal(await answer, 'once');
    assert.equal(posted.at(-1)?.type, 'permission/resolved');
    // A second answer for the same prompt is ignored.
    chat.receive({ type: 'permission/answer', id: request.request.id, decision: 'deny' });
    assert.equal(posted.at(-1)?.type, 'permission/resolved');
  });

  it('withdraws a prompt nobody waits for any more (the worker stopped, the turn ended): gone from the panel, denied', async () => {
    const stopped = new AbortController();
    const answer = chat.askPermission({ worker: 'w', kind: 'shell', detail: 'npm test' }, stopped.signal);
    const request = posted.at(-1);
    assert.ok(request?.type === 'permission/request');
    stopped.abort();
    assert.equal(await answer, 'deny');
    assert.deepEqual(posted.at(-1), { type: 'permission/resolved', id: request.request.id, seq: posted.at(-1)!.seq });
    chat.receive({ type: 'ready' });
    const snap = posted.at(-1);
    assert.ok(snap?.type === 'snapshot' && snap.snapshot.permissions.length === 0, 'a reloaded panel does not show it again');
    // A late click on it changes nothing; a signal already aborted never shows a prompt.
    chat.receive({ type: 'permission/answer', id: request.request.id, decision: 'once' });
    const count = posted.length;
    assert.equal(await chat.askPermission({ worker: 'w', kind: 'shell', detail: 'ls' }, stopped.signal), 'deny');
    assert.equal(posted.length, count);
  });

  it('maps failed replies to error messages with their action', () => {
    const msg = toChatMessage({
      id: 3,
      conversation: 'main',
      role: 'assistant',
      content: 'Sorry, I hit an error: x',
      source: 'panel',
      status: 'failed',
      meta: JSON.stringify({ error: { kind: 'auth', message: 'm', action: { label: 'Set API key', command: 'baton.setProviderKey' } } }),
      ts: '2026-11-26 10:00:00',
    });
    assert.equal(msg.role, 'error');
    assert.deepEqual(msg.action, { label: 'Set API key', command: 'baton.setProviderKey' });
    assert.equal(msg.ts, Date.parse('2026-11-26T10:00:00Z'));
  });
});
