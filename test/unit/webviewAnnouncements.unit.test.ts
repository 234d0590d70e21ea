// What the panel's live regions say, in the real webview bundle (Chromium, test/support/webviewPage.ts): what is said in
// one frame is all heard (a region rewritten twice before a paint is read with the last text only), a settled message
// is said as words (not its buttons), a refusal by one region, and a copy is said.
import * as assert from 'node:assert/strict';
import type { ChatMessage, HostMessage, Snapshot, WorkerCard } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, type WebviewPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };
const now = Date.now();
const QUESTION: ChatMessage = { id: 'log-1', role: 'user', content: 'q', status: 'complete', ts: now };
const STREAMING: ChatMessage = { id: 'turn-a', role: 'assistant', content: '', status: 'streaming', ts: now };

function worker(name: string, state: WorkerCard['state'], extra: Partial<WorkerCard> = {}): WorkerCard {
  return { name, workingDir: '/work/app', state, startedAt: now, lastLine: 'x', ...extra };
}

/** Two frames and a moment: whatever was said has been written and painted. */
const settle = (wp: WebviewPage) =>
  wp.page.evaluate('new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(function () { setTimeout(r, 100); }); }); })');

// The announcer's text at the end of each frame (what the accessibility tree sees painted), each time it changes and is
// not empty. A text overwritten within one frame never shows here.
const RECORD = `(function () {
  var a = document.querySelector('[data-testid="announcer"]');
  var last = a.textContent;
  window.__painted = [];
  (function tick() { requestAnimationFrame(function () { setTimeout(function () {
    if (a.textContent !== last) { last = a.textContent; if (last) window.__painted.push(last); }
    tick();
  }, 0); }); })();
})()`;
const painted = (wp: WebviewPage) => wp.page.evaluate('window.__painted') as Promise<string[]>;

/** Every shown live region's text, by its role. */
const LIVE = `Array.from(document.querySelectorAll('[role=status], [role=alert], [aria-live]:not([aria-live=off])'))
  .filter(function (e) { return !e.closest('[hidden]') && e.textContent.trim(); })
  .map(function (e) { return (e.getAttribute('role') || 'live') + ': ' + e.textContent.trim(); })`;

describe('webview: what is announced (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();
  let wp: WebviewPage | undefined;
  afterEach(async () => {
    await wp?.close();
    wp = undefined;
  });

  async function open(snapshot: Partial<Snapshot>): Promise<WebviewPage> {
    const s: Snapshot = { conversation: 'c1', messages: [], workers: [], permissions: [], state: STATE, ...snapshot };
    wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: s }] });
    await wp.page.waitForSelector('[data-testid="composer"]');
    await settle(wp);
    await wp.page.evaluate(RECORD);
    return wp;
  }

  /** How many painted texts hold `part`. */
  const heard = (texts: string[], part: string) => texts.filter((t) => t.includes(part)).length;

  it('two workers finishing in one update are both said, each once', async () => {
    const wp = await open({ workers: [worker('alpha', 'running'), worker('beta', 'running')] });
    await wp.push({ type: 'workers/update', seq: 2, workers: [worker('alpha', 'done'), worker('beta', 'failed')] });
    await settle(wp);
    const said = await painted(wp);
    assert.equal(heard(said, 'alpha finished'), 1, JSON.stringify(said));
    assert.equal(heard(said, 'beta finished'), 1, JSON.stringify(said));
  });

  it("a worker's finish and its result card in one go: both said, the card from its fields without its buttons", async () => {
    const wp = await open({ workers: [worker('alpha', 'running')] });
    const changes = { files: 2, additions: 3, deletions: 1 };
    await wp.push(
      { type: 'workers/update', seq: 2, workers: [worker('alpha', 'done', { changes })] },
      {
        type: 'message/append',
        seq: 3,
        message: {
          id: 'log-9',
          role: 'background',
          source: 'background:alpha',
          content: 'x',
          status: 'complete',
          ts: now,
          workerResult: { worker: 'alpha', state: 'done', durationMs: 1000, report: 'Fixed the login bug', changes },
        },
      },
    );
    await settle(wp);
    const said = (await painted(wp)).join(' | ');
    assert.match(said, /alpha finished: Done/);
    assert.match(said, /Worker alpha finished in 1 s: 2 files changed, \+3 \u22121\. Fixed the login bug/);
    assert.doesNotMatch(said, /Review changes|Transcript/);
  });

  it('a permission request and a reply settling in the same frame: both said', async () => {
    const wp = await open({ messages: [QUESTION, STREAMING], state: { ...STATE, busy: true } });
    await wp.push({ type: 'message/delta', seq: 2, id: 'turn-a', delta: 'Here is the answer.' });
    await wp.push(
      { type: 'message/update', seq: 3, id: 'turn-a', patch: { status: 'complete' } },
      { type: 'permission/request', seq: 4, request: { id: 'p1', worker: 'w', kind: 'shell', detail: 'npm test' } },
    );
    await settle(wp);
    const said = await painted(wp);
    assert.equal(heard(said, 'Here is the answer.'), 1, JSON.stringify(said));
    assert.equal(heard(said, 'w wants to run a command'), 1, JSON.stringify(said));
  });

  it("a settled reply is said as words: blocks apart, without a code block's language and buttons", async () => {
    const wp = await open({ messages: [QUESTION, STREAMING], state: { ...STATE, busy: true } });
    const text = '## Fix\n\nChanged two files:\n\n- src/a.ts\n- src/b.ts\n\n```ts\nconst x = 1;\n```\n\nDone.';
    let seq = 2;
    for (const piece of text.match(/[\s\S]{1,7}/g)!) {
      await wp.push({ type: 'message/delta', seq: seq++, id: 'turn-a', delta: piece });
      await settle(wp);
    }
    assert.deepEqual(await painted(wp), [], 'nothing is said while it streams');
    await wp.push({ type: 'message/update', seq: seq++, id: 'turn-a', patch: { status: 'complete', content: text } });
    await settle(wp);
    assert.deepEqual(await painted(wp), ['Baton: Fix. Changed two files: src/a.ts. src/b.ts. const x = 1; Done.']);
  });

  const refusals: Array<[string, HostMessage, string]> = [
    ['context/refused', { type: 'context/refused', seq: 2, kind: 'unreadable', message: 'That file is too large to attach.' }, 'too large'],
    ['chat/refused', { type: 'chat/refused', seq: 2, text: 'hello', kind: 'missing', message: 'notes.md no longer exists.' }, 'no longer exists'],
  ];
  for (const [name, message, part] of refusals) {
    it(`${name}: shown in the notice and said by one live region`, async () => {
      const wp = await open({});
      await wp.push(message);
      await settle(wp);
      const live = (await wp.page.evaluate(LIVE)) as string[];
      assert.deepEqual(
        live.filter((t) => t.includes(part)).map((t) => t.split(':')[0]),
        ['status'],
        JSON.stringify(live),
      );
      assert.match(await wp.page.locator('[data-testid="context-notice"]').innerText(), new RegExp(part));
    });
  }

  it('the same refusal twice is heard twice (the region is emptied and painted so in between)', async () => {
    const wp = await open({});
    const refused: HostMessage = { type: 'context/refused', seq: 2, kind: 'unreadable', message: 'That file is too large to attach.' };
    await wp.push(refused);
    await settle(wp);
    await wp.push({ ...refused, seq: 3 });
    await settle(wp);
    assert.deepEqual(await painted(wp), ['That file is too large to attach.', 'That file is too large to attach.']);
  });

  it('Copy on a reply, by keyboard: "Copied" is said', async () => {
    const wp = await open({ messages: [QUESTION, { id: 'turn-a', role: 'assistant', content: 'answer', status: 'complete', ts: now }] });
    await wp.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(wp.url).origin });
    await wp.page.focus('[data-testid="message-copy"]');
    await wp.page.keyboard.press('Enter');
    await settle(wp);
    assert.deepEqual(await painted(wp), ['Copied']);
  });
});
