// The panel's chips and disclosures to axe and in a high contrast theme, in the real webview bundle (Chromium,
// test/support/webviewPage.ts): chips readable on the badge's background, targets of 24 CSS px, a sent message's chips
// buttons in list items, and every summary drawn with the theme's contrast border and focus outline.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot, WorkerCard } from '../../src/shared/protocol';
import { axeSerious } from '../support/axeInPage';
import { DARK_THEME } from '../support/darkTheme';
import { openWebviewPage, useWebviewBrowser, type WebviewPage } from '../support/webviewPage';

const now = Date.now();
const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };
const MESSAGES: ChatMessage[] = [
  {
    id: 'log-1',
    role: 'user',
    content: 'look at a.ts',
    status: 'complete',
    ts: now,
    references: [{ ref: { kind: 'file', path: '/w/a.ts' }, label: 'a.ts', path: 'a.ts' }],
  },
  { id: 'turn-1', role: 'assistant', content: 'Sure.', status: 'complete', ts: now },
];
const CONVERSATIONS: Snapshot['conversations'] = [
  { id: 'c1', title: 'one', lastActivity: now, messages: 2, busy: false, unread: false },
  { id: 'c2', title: 'two', lastActivity: now, messages: 2, busy: true, unread: true },
];

function worker(name: string, extra: Partial<WorkerCard> = {}): WorkerCard {
  return {
    name,
    workingDir: '/work/app',
    state: 'done',
    startedAt: now,
    lastLine: 'editing',
    isolation: { kind: 'worktree', branch: `baton/${name}`, baseCommit: 'a1', sourceDir: '/work/app', uncommittedLeftOut: false },
    ...extra,
  };
}
const CHECKED = worker('b', {
  changes: { files: 2, additions: 1, deletions: 1, paths: ['x.ts', 'y.ts'] },
  verify: { state: 'failed', line: 'verify failed', tail: 'err' },
});

/** VS Code's high contrast dark colours that matter here. */
const HIGH_CONTRAST: Record<string, string> = {
  ...DARK_THEME,
  foreground: '#ffffff',
  focusBorder: '#f38518',
  contrastBorder: '#6fc3df',
  contrastActiveBorder: '#f38518',
  'sideBar-background': '#000000',
  'badge-background': '#000000',
  'badge-foreground': '#ffffff',
};

const settle = (wp: WebviewPage) =>
  wp.page.evaluate('new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(function () { setTimeout(r, 300); }); }); })');

describe('webview: chips and disclosures, to axe and in high contrast (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  async function open(snapshot: Partial<Snapshot>, theme?: Record<string, string>): Promise<WebviewPage> {
    const s: Snapshot = { conversation: 'c1', conversations: CONVERSATIONS, messages: [], workers: [], permissions: [], state: STATE, ...snapshot };
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), theme, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: s }] });
    await wp.page.waitForSelector('[data-testid="composer"]');
    await settle(wp);
    return wp;
  }

  it('chips above the composer and under a sent message: no serious axe finding; a sent chip is a button in a list item', async () => {
    const wp = await open({
      messages: MESSAGES,
      implicit: { key: 'file:/w/b.ts', ref: { kind: 'file', path: '/w/b.ts' }, label: 'b.ts', detail: 'b.ts' },
      attach: [{ key: 'folder:/w', ref: { kind: 'folder', path: '/w' }, label: 'w', detail: 'w' }],
    });
    try {
      assert.deepEqual(await axeSerious(wp), []);
      const item = wp.page.locator('[data-testid="message-references"] > [role="listitem"]');
      assert.equal(await item.count(), 1);
      assert.equal(await item.locator('> button[data-testid="message-reference"]:not([role])').count(), 1, 'the button keeps its role');
      const sizes = await wp.page
        .locator('[data-testid="context-chips"] button')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.width, r.height]));
      assert.ok(sizes.length === 4 && sizes.every(([w, h]) => w! >= 24 && h! >= 24), JSON.stringify(sizes));
    } finally {
      await wp.close();
    }
  });

  it("a worker's checks that failed: its summary is a target of 24 CSS px (axe)", async () => {
    const wp = await open({ workers: [CHECKED, worker('c', { changes: { files: 1, additions: 1, deletions: 0 }, conflicts: ['x.ts'] })] });
    try {
      assert.deepEqual(await axeSerious(wp), []);
      const height = await wp.page.locator('[data-testid="worker-verify"]', { hasText: 'verify failed' }).evaluate((e) => e.getBoundingClientRect().height);
      assert.ok(height >= 24, `${height}`);
    } finally {
      await wp.close();
    }
  });

  it("high contrast: the conversations toggle and a worker's checks summary have the contrast border and a focus outline", async () => {
    const wp = await open({ messages: MESSAGES, workers: [CHECKED] }, HIGH_CONTRAST);
    try {
      await wp.page.evaluate(`document.body.classList.add('vscode-high-contrast')`);
      for (const testid of ['conversations-toggle', 'worker-verify']) {
        // A key first: the focus then shows as it does by keyboard (:focus-visible).
        await wp.page.keyboard.press('Shift');
        await wp.page.focus(`[data-testid="${testid}"]`);
        const style = (await wp.page.locator(`[data-testid="${testid}"]`).evaluate((e) => {
          const cs = getComputedStyle(e);
          return {
            tag: e.tagName,
            border: `${cs.borderTopWidth} ${cs.borderTopStyle} ${cs.borderTopColor}`,
            outline: `${cs.outlineWidth} ${cs.outlineStyle} ${cs.outlineColor}`,
          };
        })) as { tag: string; border: string; outline: string };
        assert.deepEqual(style, { tag: 'SUMMARY', border: '1px solid rgb(111, 195, 223)', outline: '1px solid rgb(243, 133, 24)' }, testid);
      }
    } finally {
      await wp.close();
    }
  });
});
