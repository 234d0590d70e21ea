// Where the keyboard focus goes when what holds it changes under it, in the real webview bundle (Chromium,
// test/support/webviewPage.ts): a snapshot rebuilding the log, the conversation list updated or closed, a worker card's
// controls or the whole strip going, a long code block's Highlight button removing itself. Never to <body> (a screen
// reader then starts again from the top of the panel) and never to a control that is not shown. Also: the arrow keys
// from a control inside a message, and Escape outside the log, go where they go in the log.
import * as assert from 'node:assert/strict';
import type { ChatMessage, ConversationItem, HostMessage, PermissionPrompt, Snapshot, WorkerCard } from '../../src/shared/protocol';
import { type WebviewPage, openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };
const now = Date.now();

/** What has the focus: its test id (or tag), the message or row it is in, and whether it is shown. */
async function focus(wp: WebviewPage): Promise<string> {
  return (await wp.page.evaluate(`(function (el) {
    if (!el || el === document.body) return 'body';
    var m = el.closest('.message, .conversation');
    var shown = el.getClientRects().length > 0 && el.checkVisibility();
    return (el.dataset.testid || el.tagName.toLowerCase()) + (m && m !== el ? ' in ' + m.dataset.id : el.dataset.id ? ' ' + el.dataset.id : '') + (shown ? '' : ' (not shown)');
  })(document.activeElement)`)) as string;
}

/** Two frames and a moment: a focused control that was hidden is left by the browser at its next style update. */
const settle = (wp: WebviewPage) =>
  wp.page.evaluate('new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(function () { setTimeout(r, 50); }); }); })');

function worker(name: string, state: WorkerCard['state'], extra: Partial<WorkerCard> = {}): WorkerCard {
  const isolation = { kind: 'worktree', branch: `baton/${name}`, baseCommit: 'a1', sourceDir: '/work/app', uncommittedLeftOut: false } as const;
  return { name, workingDir: '/work/app', state, startedAt: now, lastLine: 'x', isolation, ...extra };
}

function conversation(id: string, title: string, extra: Partial<ConversationItem> = {}): ConversationItem {
  return { id, title, lastActivity: now, messages: 2, busy: false, unread: false, ...extra };
}

describe('webview: the focus is kept when what holds it changes (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();
  let wp: WebviewPage | undefined;
  afterEach(async () => {
    if (wp) assert.deepEqual(wp.errors, []);
    await wp?.close();
    wp = undefined;
  });

  async function open(snapshot: Partial<Snapshot>): Promise<WebviewPage> {
    const s: Snapshot = { conversation: 'c1', messages: [], workers: [], permissions: [], state: STATE, ...snapshot };
    wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: s }] });
    await wp.page.waitForSelector('[data-testid="composer"]');
    await settle(wp);
    return wp;
  }

  describe('the log rebuilt by a snapshot', () => {
    const msgs: ChatMessage[] = [
      { id: 'q1', role: 'user', content: 'q', status: 'complete', ts: now },
      { id: 'a1', role: 'assistant', content: 'answer', status: 'complete', ts: now },
    ];
    const snapshotOf = (messages: ChatMessage[], busy = false): HostMessage => ({
      type: 'snapshot',
      seq: 2,
      snapshot: { conversation: 'c1', messages, workers: [], permissions: [], state: { ...STATE, busy } },
    });

    it('Retry by keyboard: the reply goes with the snapshot, and the focus goes to the log', async () => {
      const wp = await open({ messages: msgs });
      await wp.page.locator('[data-id="a1"] [data-testid="message-retry"]').focus();
      await wp.page.keyboard.press('Enter');
      assert.equal((await wp.posted()).filter((m) => m.type === 'chat/retry').length, 1);
      await wp.push(snapshotOf([msgs[0]!], true));
      await settle(wp);
      assert.equal(await focus(wp), 'messages');
    });

    for (const [how, reply] of [
      ['unchanged (its view kept)', msgs[1]!],
      ['changed (its view built again)', { ...msgs[1]!, content: 'answer, edited' }],
    ] as const)
      it(`a snapshot that keeps the focused message, ${how}, keeps the focus on the same control of it`, async () => {
        const wp = await open({ messages: msgs });
        await wp.page.locator('[data-id="a1"] [data-testid="message-copy"]').focus();
        await wp.push(snapshotOf([msgs[0]!, reply]));
        await settle(wp);
        assert.equal(await focus(wp), 'message-copy in a1');
      });
  });

  describe('the conversation list', () => {
    const convs = [conversation('c1', 'one'), conversation('c2', 'two', { busy: true })];

    async function openList(): Promise<WebviewPage> {
      const wp = await open({ conversations: convs });
      await wp.page.focus('[data-testid="conversations-toggle"]');
      await wp.page.keyboard.press('Enter');
      return wp;
    }
    const inRow = (wp: WebviewPage, id: string, testid: string) => wp.page.locator(`.conversation[data-id="${id}"] [data-testid="${testid}"]`);

    it('an update while Rename has the focus (the host renamed it) leaves the focus on that Rename', async () => {
      const wp = await openList();
      await inRow(wp, 'c2', 'conversation-rename').focus();
      await wp.page.keyboard.press('Enter');
      await wp.push({ type: 'conversations/update', seq: 2, active: 'c1', conversations: [convs[0]!, { ...convs[1]!, title: 'renamed' }] });
      assert.equal(await focus(wp), 'conversation-rename in c2');
      assert.match(await inRow(wp, 'c2', 'conversation-open').innerText(), /renamed/);
    });

    it('an update that reorders the rows leaves the focus on the same row\u2019s button', async () => {
      const wp = await openList();
      await inRow(wp, 'c2', 'conversation-open').focus();
      await wp.push({ type: 'conversations/update', seq: 2, active: 'c1', conversations: [{ ...convs[1]!, busy: false, unread: true }, convs[0]!] });
      assert.equal(await focus(wp), 'conversation-open in c2');
      assert.equal(await inRow(wp, 'c2', 'conversation-badge').isVisible(), true);
    });

    it('the focused row deleted: the focus goes to a row that is left', async () => {
      const wp = await openList();
      await inRow(wp, 'c2', 'conversation-delete').focus();
      await wp.push({ type: 'conversations/update', seq: 2, active: 'c1', conversations: [convs[0]!] });
      assert.equal(await focus(wp), 'conversation-delete in c1');
    });

    it('Search conversations\u2026 closes the list and leaves the focus on its toggle', async () => {
      const wp = await openList();
      await wp.page.focus('[data-testid="conversations-search"]');
      await wp.page.keyboard.press('Enter');
      await settle(wp);
      assert.equal(await wp.page.evaluate('document.querySelector(".conversations").open'), false);
      assert.equal(await focus(wp), 'conversations-toggle');
    });

    it('opening a conversation closes the list and gives the focus to the composer', async () => {
      const wp = await openList();
      await inRow(wp, 'c2', 'conversation-open').focus();
      await wp.page.keyboard.press('Enter');
      await settle(wp);
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'conversation/open'),
        [{ type: 'conversation/open', id: 'c2' }],
      );
      assert.equal(await wp.page.evaluate('document.querySelector(".conversations").open'), false);
      assert.equal(await focus(wp), 'composer');
    });

    it('Escape in the list closes it and goes back to the composer', async () => {
      const wp = await openList();
      await inRow(wp, 'c2', 'conversation-rename').focus();
      await wp.page.keyboard.press('Escape');
      assert.equal(await wp.page.evaluate('document.querySelector(".conversations").open'), false);
      assert.equal(await focus(wp), 'composer');
    });
  });

  describe('the worker strip', () => {
    it('the last worker leaving takes the strip with it: the focus its card had goes to the composer', async () => {
      const wp = await open({ workers: [worker('w', 'running')] });
      await wp.page.focus('[data-testid="worker-card"]');
      await wp.push({ type: 'workers/update', seq: 2, workers: [] });
      await settle(wp);
      assert.equal(await focus(wp), 'composer');
    });

    it('Resolve with worker: the conflict row hides as the worker runs, and the focus goes to the card', async () => {
      const c = { changes: { files: 1, additions: 1, deletions: 0 }, conflicts: ['a.ts'] };
      const wp = await open({ workers: [worker('w', 'done', c)] });
      await wp.page.focus('[data-testid="worker-resolve-worker"]');
      await wp.page.keyboard.press('Enter');
      await wp.push({ type: 'workers/update', seq: 2, workers: [worker('w', 'running', { ...c, activity: 'resolving conflicts' })] });
      await settle(wp);
      assert.equal(await focus(wp), 'worker-card');
    });

    it('the verify line goes while it has the focus: the focus goes to the card', async () => {
      const c = { changes: { files: 1, additions: 1, deletions: 0 } };
      const verify = { state: 'failed', line: 'verify failed: npm test exited 1', tail: 'x' } as const;
      const wp = await open({ workers: [worker('w', 'done', { ...c, verify })] });
      await wp.page.focus('[data-testid="worker-verify"]');
      await wp.push({ type: 'workers/update', seq: 2, workers: [worker('w', 'running', c)] });
      await settle(wp);
      assert.equal(await focus(wp), 'worker-card');
    });

    it('an update that reorders the cards leaves the focus on the card that had it', async () => {
      const wp = await open({ workers: [worker('a', 'running'), worker('b', 'running')] });
      await wp.page.focus('[data-testid="worker-card"][data-name="b"]');
      await wp.push({ type: 'workers/update', seq: 2, workers: [worker('b', 'running'), worker('a', 'running')] });
      await settle(wp);
      assert.equal(await focus(wp), 'worker-card');
      assert.equal(await wp.page.evaluate('document.activeElement.dataset.name'), 'b');
    });

    it('Escape on a worker card goes back to the composer, as in the log', async () => {
      const wp = await open({ workers: [worker('w', 'running')] });
      await wp.page.focus('[data-testid="worker-card"]');
      await wp.page.keyboard.press('Escape');
      assert.equal(await focus(wp), 'composer');
    });
  });

  it('Escape on a permission prompt goes back to the composer and answers nothing', async () => {
    const prompt: PermissionPrompt = { id: 'p1', worker: 'w', kind: 'shell', detail: 'npm test' };
    const wp = await open({ permissions: [prompt] });
    await wp.page.focus('[data-testid="perm-deny"]');
    await wp.page.keyboard.press('Escape');
    assert.equal(await focus(wp), 'composer');
    assert.deepEqual(
      (await wp.posted()).filter((m) => m.type === 'permission/answer'),
      [],
    );
  });

  it('Highlight on a long code block, pressed by keyboard: the focus goes to the block\u2019s Copy', async () => {
    const code = Array.from({ length: 3000 }, (_, i) => `const x${i} = ${i};`).join('\n');
    const wp = await open({
      messages: [
        { id: 'q1', role: 'user', content: 'q', status: 'complete', ts: now },
        { id: 'a1', role: 'assistant', content: '```ts\n' + code + '\n```', status: 'complete', ts: now },
      ],
    });
    const highlight = wp.page.locator('[data-testid="code-highlight"]');
    await highlight.focus();
    await wp.page.keyboard.press('Enter');
    await highlight.waitFor({ state: 'detached' });
    await settle(wp);
    assert.equal(await focus(wp), 'code-copy in a1');
  });

  it('an arrow key from a link inside a message moves from that message', async () => {
    const msgs: ChatMessage[] = [];
    for (let i = 1; i <= 6; i++) {
      msgs.push({ id: `q${i}`, role: 'user', content: `q${i}`, status: 'complete', ts: now });
      msgs.push({ id: `a${i}`, role: 'assistant', content: `answer ${i} [link](https://e.x/${i})`, status: 'complete', ts: now });
    }
    const wp = await open({ messages: msgs });
    await wp.page.locator('[data-testid="messages"]').focus();
    await wp.page.keyboard.press('Home');
    await wp.page.keyboard.press('ArrowDown');
    await wp.page.keyboard.press('Tab');
    assert.equal(await focus(wp), 'a in a1');
    await wp.page.keyboard.press('ArrowDown');
    assert.equal(await focus(wp), 'message q2');
    await wp.page.keyboard.press('ArrowDown');
    await wp.page.keyboard.press('Tab');
    assert.equal(await focus(wp), 'a in a2');
    await wp.page.keyboard.press('ArrowUp');
    assert.equal(await focus(wp), 'message q2', 'from a2\u2019s link, up is q2');
  });
});
