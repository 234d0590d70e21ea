/**
 * The panel against hostile replies, in a narrow side bar, and while it is hidden:
 * - a reply full of XSS payloads renders as text: no script, no event handler, no unsafe link in the real webview;
 * - the header fits a 300 px side bar with the whole model name readable;
 * - a worker result that arrives while the panel is hidden raises a notification and a badge; Open Chat shows it;
 * - so does a worker's question: Open Chat shows the prompt, where it is answered.
 */
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { scriptDelegation, scriptWorkerRound } from '../../support/scriptedWorker';
import { ui } from './fixture';
import { completedReply, freshChat, messages, openBaton, send } from './helpers';

const XSS = [
  '<script>window.__xss = "script"</script>',
  '<img src=x onerror="window.__xss = \'img\'">',
  '<svg onload="window.__xss = \'svg\'"></svg>',
  '[plain js](javascript:window.__xss=1) [mixed](JaVaScRiPt:window.__xss=1) [upper](JAVASCRIPT:window.__xss=1)',
  '[tab](java\tscript:window.__xss=1) [entity](&#106;avascript:window.__xss=1) [hex](&#x6A;avascript&#x3A;window.__xss=1) [colon](javascript&colon;window.__xss=1)',
  '[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==) [Data](DaTa:text/html,<script>x</script>)',
  '<javascript:window.__xss=1> <DATA:text/html,x> <https://ok.example/autolink>',
  '[title](https://ok.example "\\" onmouseover=\\"window.__xss=1")',
  '![img](javascript:window.__xss=1) ![svg](data:image/svg+xml,<svg onload=window.__xss=1>)',
  '[ref]\n\n[ref]: javascript:window.__xss=1',
  '```html" onmouseover="window.__xss=1\n</code></pre><img src=x onerror="window.__xss=1">\n```',
  '`</code><script>window.__xss=1</script>`',
  '| <svg onload=window.__xss=1> |\n|---|\n| <a href="javascript:x">cell</a> |',
  'Safe: [docs](https://ok.example/docs) and [a file](src/app.ts).',
].join('\n\n');

/** What the user's DOM holds that could run or navigate somewhere unsafe, collected inside the webview. */
async function dangers(body: Locator): Promise<{ elements: string[]; attributes: string[]; hrefs: string[]; xss: unknown }> {
  return body.evaluate((el) => {
    const elements = Array.from(el.querySelectorAll('script, iframe, object, embed, img, svg, style, form, link, meta, math, base')).map((e) => e.outerHTML);
    const attributes: string[] = [];
    const hrefs: string[] = [];
    for (const node of Array.from(el.querySelectorAll('*'))) {
      for (const attr of Array.from(node.attributes)) {
        if (/^on/i.test(attr.name) || attr.name === 'style' || attr.name === 'srcdoc' || attr.name === 'src')
          attributes.push(`${node.tagName} ${attr.name}=${attr.value}`);
        // eslint-disable-next-line no-control-regex
        if (/(java|vb)script:|data:/i.test(attr.value.replace(/[\u0000-\u0020]/g, ''))) attributes.push(`${node.tagName} ${attr.name}=${attr.value}`);
      }
      const href = node.getAttribute('href');
      if (href !== null) hrefs.push(href);
    }
    return { elements, attributes, hrefs, xss: (window as unknown as { __xss?: unknown }).__xss };
  });
}

function batonTab(page: Page): Locator {
  return page.locator('.activitybar li.action-item:has(a[aria-label^="Baton"])').first();
}

/**
 * Hides the chat as a user would (the Explorer in the side bar), once the new worker is listed: a new worker opens the
 * Workers view below the chat, and an Explorer click while the workbench still reveals Baton's container is undone.
 */
async function hideChatOnceListed(page: Page, worker: string): Promise<void> {
  await page
    .locator('.part.sidebar .pane:has(.pane-header[aria-label^="Workers"]) .monaco-list-row')
    .filter({ hasText: worker })
    .first()
    .waitFor({ timeout: 15_000 });
  await page.locator('.activitybar li.action-item:has(a[aria-label^="Explorer"])').first().click();
  await page
    .locator('.part.sidebar .composite.title', { hasText: /explorer/i })
    .first()
    .waitFor({ timeout: 10_000 });
}

/** Drags the sash right of the side bar until the side bar is `width` px wide; returns the width it had. */
async function setSideBarWidth(page: Page, width: number): Promise<number> {
  const sideBar = page.locator('.part.sidebar').first();
  const box = (await sideBar.boundingBox())!;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width - 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
  await page.mouse.move(box.x + width + 400, y);
  await page.waitForTimeout(300);
  return box.width;
}

describe('Panel safety, layout and background results', function () {
  this.timeout(120_000);

  it('renders a reply full of XSS payloads as inert text: no script, no handler, no unsafe link', async () => {
    const { view } = await freshChat();
    const PROMPT = 'Show me how XSS payloads render';
    ui().server.on({ lastUserIncludes: PROMPT, name: 'xss payloads' }, { text: XSS, chunks: 24, chunkDelayMs: 20 });
    await send(view, PROMPT);
    const reply = await completedReply(view, 'Safe:');
    const body = reply.locator('.message-body');

    const found = await dangers(body);
    assert.deepEqual(found.elements, [], 'no script, img, svg, iframe… element');
    assert.deepEqual(found.attributes, [], 'no on* / style / src attribute and no javascript: or data: value');
    assert.equal(found.xss, undefined, 'no payload ran');
    for (const href of found.hrefs) assert.match(href, /^(https?:|mailto:|file:|[^:]*$)/i, `unsafe href ${href}`);
    assert.ok(found.hrefs.includes('https://ok.example/docs') && found.hrefs.includes('src/app.ts'), `safe links stay links: ${found.hrefs.join(' ')}`);
    assert.ok(found.hrefs.includes('https://ok.example/autolink'), 'an autolink with a safe scheme is a link');

    // The user reads the payloads as text.
    const text = await body.innerText();
    assert.ok(text.includes('<script>window.__xss = "script"</script>'), text);
    assert.ok(text.includes(`<img src=x onerror="window.__xss = 'img'">`), text);
    assert.equal(await body.locator('a', { hasText: 'plain js' }).count(), 0, 'a javascript: link is not a link');
    // The code fence breakout stayed inside its code block, as text.
    const code = body.locator('.code-block code');
    assert.equal(await code.count(), 1);
    assert.equal(await code.textContent(), '</code></pre><img src=x onerror="window.__xss=1">');
  });

  it('fits the header in a 300 px side bar, the whole model name readable', async () => {
    const { page } = ui();
    const view = await openBaton(page);
    const before = await setSideBarWidth(page, 300);
    try {
      const sideBarWidth = (await page.locator('.part.sidebar').first().boundingBox())!.width;
      assert.ok(Math.abs(sideBarWidth - 300) <= 4, `side bar is ${sideBarWidth} px`);
      const layout = await view.locator('header.header').evaluate((header) => {
        const model = header.querySelector<HTMLElement>('[data-testid="model"]')!;
        const right = header.getBoundingClientRect().right;
        return {
          name: model.textContent ?? '',
          title: model.title,
          truncated: model.scrollWidth > model.clientWidth + 1,
          overflow: header.scrollWidth > header.clientWidth + 1,
          outside: Array.from(header.children)
            .filter((c) => c.getBoundingClientRect().right > right + 1)
            .map((c) => c.outerHTML.slice(0, 60)),
        };
      });
      assert.ok(layout.name.length > 3, `model shown: ${layout.name}`);
      assert.equal(layout.truncated, false, `the model name "${layout.name}" is shown whole`);
      assert.equal(layout.overflow, false, 'nothing in the header overflows');
      assert.deepEqual(layout.outside, [], 'every header control is inside the panel');
      // The tooltip's first line names the model; today's usage may follow on the next.
      assert.equal(layout.title.split('\n')[0], `Model: ${layout.name}`, 'the tooltip names the model');
      assert.ok(await view.locator('[data-testid="routing-toggle"]').isVisible());
      assert.ok(await view.locator('[data-testid="new-chat"]').isVisible());
      // The model is the way to switch it: a click opens Baton: Switch Model's quick pick, which lists it.
      await view.locator('[data-testid="model-switch"]').click();
      const pick = page.locator('.quick-input-widget');
      await pick.locator('.quick-input-title', { hasText: 'Baton: model for the orchestrator' }).waitFor({ timeout: 15_000 });
      await pick.locator('.monaco-list-row', { hasText: layout.name }).first().waitFor({ timeout: 5_000 });
      await page.keyboard.press('Escape');
      await pick.waitFor({ state: 'hidden', timeout: 5_000 });
    } finally {
      await setSideBarWidth(page, before);
    }
  });

  it('a worker result that arrives while the panel is hidden raises a notification and a badge', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const PROMPT = 'Please check the project in the background';
    const TASK = 'TASK-ui-notify: check the project and report';
    const RESULT = 'Check finished: nothing to fix.';
    const SUMMARY = 'The notify worker is done: nothing to fix.';
    scriptDelegation(server, { prompt: PROMPT, worker: 'ui-notify', workingDir: workspace, task: TASK, started: 'Started worker ui-notify.' });
    // Time enough to hide the panel before the worker answers.
    server.on({ lastUserIncludes: 'TASK-ui-notify', name: 'the worker answers' }, { text: RESULT, delayMs: 6000 });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'ui-notify' finished:", name: 'the summary' }, { text: SUMMARY });

    await send(view, PROMPT);
    await completedReply(view, 'Started worker ui-notify.');
    await hideChatOnceListed(page, 'ui-notify');
    assert.notEqual(await batonTab(page).getAttribute('aria-selected'), 'true', 'the Baton view is hidden');

    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: "Baton: worker 'ui-notify'" });
    await toast.waitFor({ timeout: 45_000 });
    assert.match(await toast.innerText(), /nothing to fix/);
    const badge = batonTab(page).locator('.badge .badge-content');
    await badge.waitFor({ timeout: 10_000 });
    assert.equal((await badge.innerText()).trim(), '1', 'one unread background result on the Baton icon');

    await toast.getByRole('button', { name: 'Open Chat' }).click();
    const shown = await openBaton(page);
    await messages(shown, 'background').filter({ hasText: RESULT }).waitFor({ timeout: 15_000 });
    await completedReply(shown, SUMMARY);
    await badge.waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it("a worker's question while the panel is hidden raises a notification; Open Chat shows the prompt, answered there", async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const PROMPT = 'Greet me from a shell in the background';
    const COMMAND = 'echo hi from the hidden-panel worker';
    scriptDelegation(server, { prompt: PROMPT, worker: 'ui-asks', workingDir: workspace, task: 'TASK-ui-asks', started: 'Started worker ui-asks.' });
    // Time enough to hide the panel before the worker asks.
    scriptWorkerRound(server, {
      worker: 'ui-asks',
      prompt: 'TASK-ui-asks',
      does: { toolCalls: [{ name: 'bash', arguments: { command: COMMAND, description: 'Greet' } }] },
      report: 'Not run: denied.',
      delayMs: 6000,
    });

    await send(view, PROMPT);
    await completedReply(view, 'Started worker ui-asks.');
    await hideChatOnceListed(page, 'ui-asks');
    assert.notEqual(await batonTab(page).getAttribute('aria-selected'), 'true', 'the Baton view is hidden');

    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Baton: ui-asks wants to run a command' });
    await toast.waitFor({ timeout: 45_000 });
    assert.match(await toast.innerText(), new RegExp(`Baton: ui-asks wants to run a command: ${COMMAND}`));
    await toast.getByRole('button', { name: 'Open Chat' }).click();
    const shown = await openBaton(page);
    const prompt = shown.locator('[data-testid="permission"]');
    await prompt.waitFor({ timeout: 15_000 });
    assert.equal(await prompt.locator('.permission-detail').innerText(), COMMAND);
    await prompt.locator('[data-testid="perm-deny"]').click();
    await prompt.waitFor({ state: 'detached', timeout: 10_000 });
    await messages(shown, 'background').filter({ hasText: 'Not run: denied.' }).waitFor({ timeout: 30_000 });
    await completedReply(shown, 'noted ui-asks');
  });
});
