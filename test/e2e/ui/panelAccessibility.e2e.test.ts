/**
 * The panel for people who use a keyboard, a screen reader or a high contrast theme, in the real webview in code-server:
 * - axe-core finds nothing serious or critical in each state: empty, streaming, the # picker, an error, a permission
 *   prompt, a worker card with changes;
 * - keyboard only (key presses, no clicks in the panel): reach the composer, send, stop, move through the messages,
 *   use the # picker and remove a chip, answer a permission prompt, reach a worker's Review / Apply / Discard and
 *   discard; the focus is visible at every stop and never lost when a chip, a prompt or a button goes;
 * - the live region says a reply once it settled (never its deltas), a worker finishing and a permission request;
 *   roles and names come from Playwright's accessibility snapshot;
 * - high contrast dark and light: every control has a visible border and focus outline (test-results/a11y-*.png).
 * Named to run after chat.e2e.test.ts, which opens the view from a closed side bar.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FrameLocator, Page } from 'playwright-core';
import { announcements, describeFindings, eventually, focused, recordAnnouncements, seriousAxeFindings, webviewFrame, type Focused } from './a11y';
import { DEFAULT_THEME, resultsDir, ui } from './fixture';
import { completedReply, freshChat, messages, runCommand, setColorTheme, THEMES, toolResults } from './helpers';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.invalid', ...args], { cwd });

async function assertNoSeriousFindings(view: FrameLocator, state: string): Promise<void> {
  const findings = await seriousAxeFindings(view);
  assert.deepEqual(findings, [], `axe, ${state}:\n${describeFindings(findings)}`);
}

/** Presses a key until the focus is on the element with this test id; returns every stop on the way. */
async function pressUntil(page: Page, view: FrameLocator, key: string, testid: string, max = 12): Promise<Focused[]> {
  const stops: Focused[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const now = await focused(view);
    stops.push(now);
    if (now.testid === testid) return stops;
  }
  throw new Error(`${key} never reached ${testid}; stops: ${stops.map((s) => s.what).join(', ')}`);
}

function assertVisible(stops: Focused[]): void {
  const hidden = stops.filter((s) => !s.visible);
  assert.deepEqual(
    hidden.map((s) => s.what),
    [],
    'every focus stop shows a focus ring',
  );
}

/** The keyboard way into the panel: the palette (F1), the command's title, Enter. */
async function openChatByKeyboard(page: Page): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await page.keyboard.type('Baton: Open Chat');
  await page.locator('.quick-input-widget .monaco-list-row[aria-label^="Baton: Open Chat"]').first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

async function composerFocused(view: FrameLocator): Promise<void> {
  await eventually('the composer has the focus', async () => ((await focused(view)).testid === 'composer' ? true : undefined), 10_000);
}

describe('Accessibility', function () {
  this.timeout(150_000);

  // The contrast findings depend on the theme: these run in the suite's default one. The fixture's switch at start-up
  // is best effort, and a switch whose click timed out can leave the workbench named Dark Modern but painted Light+
  // (the picker's preview), so it is switched away and back here, and must hold. (Light+'s own description colour on
  // its side bar is 4.39:1, under AA: a property of that theme, which VS Code's own views share.)
  before(async function () {
    this.timeout(120_000);
    const { page } = ui();
    await setColorTheme(page, THEMES.light);
    await setColorTheme(page, DEFAULT_THEME);
  });

  it('the empty panel: the keyboard (the palette, then Ctrl+Shift+Alt+B) reaches the composer and every control with a visible focus; no serious axe finding; roles and names', async () => {
    const { page, view } = await freshChat();
    // Focus elsewhere in the workbench first, then come back by keyboard only.
    await runCommand(page, 'File: Focus on Files Explorer');
    await openChatByKeyboard(page);
    await composerFocused(view);
    // Backwards through every stop of the panel, then forwards back to the composer.
    const back = await pressUntil(page, view, 'Shift+Tab', 'new-chat');
    assertVisible(back);
    assert.ok(
      back.some((s) => s.testid === 'example-prompt'),
      `the example prompts are stops: ${back.map((s) => s.what).join(', ')}`,
    );
    assertVisible(await pressUntil(page, view, 'Tab', 'composer', 16));
    await assertNoSeriousFindings(view, 'empty');

    // The keybinding (Ctrl+Shift+Alt+B, which adds a selection to the chat when there is one) opens it from anywhere
    // else, the focus in the composer.
    await runCommand(page, 'File: Focus on Files Explorer');
    await eventually(
      'the focus left the panel',
      async () => ((await page.evaluate(() => document.activeElement?.tagName)) === 'IFRAME' ? undefined : true),
      10_000,
    );
    await page.keyboard.press('Control+Shift+Alt+B');
    await composerFocused(view);

    const tree = await view.locator('body').ariaSnapshot();
    for (const node of [
      'main "Chat"',
      'log "Conversation"',
      'button "New chat"',
      'checkbox "Auto',
      'group "Example prompts"',
      'group "Compose a message"',
      'textbox "Message Baton"',
      'button "Attach context (#)"',
      'button "Send message"',
    ])
      assert.ok(tree.includes(`- ${node}`), `the accessibility tree has ${node}:\n${tree}`);
  });

  it('a reply by keyboard: Enter sends, it streams (axe), the live region says it once settled, never a delta; arrows move through the messages', async () => {
    const { page, view } = await freshChat();
    const { server } = ui();
    const PROMPT = 'Tell me three facts about batons';
    const FIRST = 'Relay batons are hollow tubes. ';
    const REPLY = `${FIRST}They are about 30 cm long. Dropping one disqualifies the team unless it is picked up.`;
    server.on({ lastUserIncludes: PROMPT, name: 'the streamed reply' }, { text: REPLY, chunks: 3, chunkDelayMs: 1500 });
    await openChatByKeyboard(page);
    await composerFocused(view);
    await recordAnnouncements(view);
    await page.keyboard.type(PROMPT);
    await page.keyboard.press('Enter');

    const streaming = messages(view, 'assistant', 'streaming').filter({ hasText: FIRST.trim() });
    await streaming.waitFor({ timeout: 30_000 });
    await assertNoSeriousFindings(view, 'streaming');
    assert.deepEqual(await announcements(view), [], 'nothing is said while the reply streams');
    assert.equal(await streaming.getAttribute('aria-busy'), '', 'the streaming message is marked busy');

    await completedReply(view, 'picked up');
    const said = await eventually('the settled reply is announced', async () => {
      const a = await announcements(view);
      return a.length ? a : undefined;
    });
    assert.equal(said.length, 1, `one announcement: ${JSON.stringify(said)}`);
    assert.match(said[0]!, /^Baton: Relay batons are hollow tubes\. They are about 30 cm long\./);

    const tree = await view.locator('[data-testid="messages"]').ariaSnapshot();
    assert.match(tree, /- log "Conversation"/);
    assert.match(tree, /- article "You"/);
    assert.match(tree, /- article "Baton"/);

    // Into the conversation and through it by arrows; Escape goes back to the composer.
    assertVisible(await pressUntil(page, view, 'Shift+Tab', 'messages'));
    await page.keyboard.press('ArrowUp');
    let now = await focused(view);
    assert.equal(now.testid, 'message');
    assert.match(now.what, /article "Baton"/);
    assert.ok(now.visible, 'the focused message is marked');
    await page.keyboard.press('ArrowUp');
    now = await focused(view);
    assert.match(now.what, /article "You"/);
    await page.keyboard.press('End');
    assert.match((await focused(view)).what, /article "Baton"/);
    await page.keyboard.press('Escape');
    assert.equal((await focused(view)).testid, 'composer');
  });

  it('Stop by keyboard: the answer stops and the focus stays in the composer when the Stop button goes', async () => {
    const { page, view } = await freshChat();
    const { server } = ui();
    const PROMPT = 'Write a very long story about relay races';
    server.on({ lastUserIncludes: PROMPT, name: 'a reply that never ends' }, { textThenHang: 'Once upon a time, ' });
    await openChatByKeyboard(page);
    await composerFocused(view);
    await page.keyboard.type(PROMPT);
    await page.keyboard.press('Enter');
    await messages(view, 'assistant', 'streaming').filter({ hasText: 'Once upon a time' }).waitFor({ timeout: 30_000 });
    assertVisible(await pressUntil(page, view, 'Tab', 'stop', 4));
    await page.keyboard.press('Enter');
    await messages(view, 'assistant')
      .filter({ hasText: 'Once upon a time' })
      .and(view.locator('[data-status="cancelled"], [data-status="partial"]'))
      .waitFor({ timeout: 20_000 });
    await view.locator('[data-testid="stop"]').waitFor({ state: 'hidden' });
    assert.equal((await focused(view)).testid, 'composer', 'the focus went back to the composer, not nowhere');
  });

  it('the # picker by keyboard: axe with the list open, a chip added and removed, the focus kept', async () => {
    const { page, view } = await freshChat();
    await openChatByKeyboard(page);
    await composerFocused(view);
    await page.keyboard.type('#');
    const picker = view.locator('[data-testid="hash-picker"]');
    await picker.waitFor({ state: 'visible' });
    await assertNoSeriousFindings(view, 'the # picker');
    const tree = await view.locator('[data-testid="composer"]').locator('..').ariaSnapshot();
    assert.match(tree, /- listbox "Attach context"/);
    assert.match(tree, /- option "#file a file of the workspace" \[selected\]/);
    await page.keyboard.type('ch');
    assert.deepEqual(await picker.locator('[data-testid="hash-option"]').allInnerTexts(), [
      '#changes\nthe working tree\u2019s git diff'.replace('\u2019', "'"),
    ]);
    await page.keyboard.press('Enter');
    const chip = view.locator('[data-testid="context-chip"][data-kind="changes"]');
    await chip.waitFor({ timeout: 15_000 });
    await picker.waitFor({ state: 'hidden' });
    assert.equal(await view.locator('[data-testid="composer"]').inputValue(), '', 'the #word went with the pick');
    await composerFocused(view);

    const stops = await pressUntil(page, view, 'Shift+Tab', 'context-chip-remove', 3);
    assertVisible(stops);
    assert.match(stops.at(-1)!.what, /"Remove /);
    await page.keyboard.press('Enter');
    await chip.waitFor({ state: 'detached' });
    assert.equal((await focused(view)).testid, 'composer', 'the focus went to the composer when the chip went');
  });

  it('an error: no serious axe finding, and the live region says it', async () => {
    const { page, view } = await freshChat();
    const { server } = ui();
    const PROMPT = 'This request will be refused';
    server.on({ lastUserIncludes: PROMPT, name: 'a refused request' }, { error: 400, body: { error: { message: 'scripted bad request for the a11y test' } } });
    await openChatByKeyboard(page);
    await composerFocused(view);
    await recordAnnouncements(view);
    await page.keyboard.type(PROMPT);
    await page.keyboard.press('Enter');
    const error = view.locator('[data-testid="message"][data-role="error"], [data-testid="message"][data-status="failed"]').last();
    await error.waitFor({ timeout: 60_000 });
    await assertNoSeriousFindings(view, 'an error');
    const said = await eventually('the error is announced', async () => {
      const a = await announcements(view);
      return a.some((t) => /^Error/.test(t)) ? a : undefined;
    });
    assert.ok(said.length >= 1);
  });

  it('a worker by keyboard: its permission prompt (axe, announced, answered by keys), its card with changes (axe), its finish announced, Discard by keys', async function () {
    this.timeout(200_000);
    const { page, view } = await freshChat();
    const { server } = ui();
    const NAME = 'ui-a11y';
    const PROMPT = 'Fix the line in app.txt of my repository';
    // A git repository outside the window's workspace, so VS Code's git extension never sees it (later tests share
    // this window); the worker gets its own worktree of it.
    const repo = await mkdtemp(join(tmpdir(), 'baton-a11y-repo-'));
    await mkdir(join(repo, 'src'));
    await writeFile(join(repo, 'src', 'app.txt'), 'original line\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');
    server.on(
      { lastUserIncludes: `[via panel] ${PROMPT}`, afterToolResult: false, name: 'delegate' },
      { toolCalls: [{ name: 'create_worker_session', arguments: { name: NAME, working_dir: repo, initial_prompt: 'TASK-a11y' } }] },
    );
    server.on({ lastUserIncludes: `[via panel] ${PROMPT}`, afterToolResult: true, name: 'started' }, { text: `Started ${NAME}.` });
    // The worker edits first (the review e2e test's way), then wants a shell, is denied, and reports.
    server.on(
      { lastUserIncludes: 'TASK-a11y', afterToolResult: false, name: 'the worker edits' },
      { toolCalls: [{ name: 'edit', arguments: { path: 'src/app.txt', old_str: 'original line', new_str: 'fixed line' } }] },
    );
    server.on(
      { lastUserIncludes: 'TASK-a11y', afterToolResult: true, name: 'the worker wants a shell, then reports' },
      { toolCalls: [{ name: 'bash', arguments: { command: 'date > src/date.txt', description: 'Date' } }] },
      { text: `${NAME}: fixed app.txt` },
    );
    server.on({ lastUserIncludes: `[Background task completed] Worker '${NAME}' finished:`, name: 'summary' }, { text: `${NAME} fixed the line.` });

    try {
      await openChatByKeyboard(page);
      await composerFocused(view);
      await recordAnnouncements(view);
      await page.keyboard.type(PROMPT);
      await page.keyboard.press('Enter');

      // The prompt takes the focus (its container, so a key meant for the composer cannot answer it) and is announced.
      const prompt = view.locator('[data-testid="permission"]');
      await prompt.waitFor({ timeout: 40_000 });
      await eventually('the prompt has the focus', async () => ((await focused(view)).testid === 'permission' ? true : undefined), 10_000);
      assert.ok((await focused(view)).visible, 'the focused prompt is marked');
      assert.ok(
        (await announcements(view)).some((t) => t.includes(`${NAME} wants to run a command`)),
        JSON.stringify(await announcements(view)),
      );
      await assertNoSeriousFindings(view, 'a permission prompt');
      const promptTree = await prompt.ariaSnapshot();
      assert.match(promptTree, new RegExp(`group "${NAME} wants to run a command"`));
      assert.match(promptTree, /- button "Allow once"/);
      assert.match(promptTree, /- button "Deny"/);
      assertVisible(await pressUntil(page, view, 'Tab', 'perm-deny', 3));
      await page.keyboard.press('Enter');
      await prompt.waitFor({ state: 'detached', timeout: 10_000 });
      assert.equal((await focused(view)).testid, 'composer', 'the focus went to the composer when the prompt went');

      // The card with its changes; its finish is announced.
      const item = view.locator('.worker-item').filter({ has: view.locator(`[data-testid="worker-card"][data-name="${NAME}"]`) });
      await item
        .locator('[data-testid="worker-changes"]')
        .filter({ hasText: '1 file changed' })
        .waitFor({ timeout: 40_000 })
        .catch((err: unknown) => {
          const results = server
            .chatRequests()
            .filter((r) => r.lastUserText?.includes('TASK-a11y'))
            .flatMap((r) => toolResults(r));
          throw new Error(`no changes on the card; the worker's tool results: ${JSON.stringify(results)}\n${String(err)}`);
        });
      await item.locator('[data-testid="worker-card"][data-state="done"]').waitFor({ timeout: 30_000 });
      await completedReply(view, `${NAME} fixed the line.`);
      await assertNoSeriousFindings(view, 'a worker card with changes');
      const said = await announcements(view);
      assert.ok(
        said.some((t) => t.startsWith(`${NAME} finished: Done`) && t.includes('1 file changed')),
        JSON.stringify(said),
      );
      const cardTree = await view.locator('[data-testid="workers"]').ariaSnapshot();
      assert.match(cardTree, /- region "Background workers"/);
      assert.match(cardTree, /- listitem/);
      assert.match(cardTree, new RegExp(`button "${NAME} Done`));
      for (const b of ['Review', 'Apply', 'Discard', 'Open folder']) assert.match(cardTree, new RegExp(`- button "${b}"`));

      // From the composer back to the card's actions, each stop visibly focused; Discard by Enter, confirmed by keys.
      await composerFocused(view);
      const stops = await pressUntil(page, view, 'Shift+Tab', 'worker-review', 10);
      assertVisible(stops);
      // (Cards of earlier tests' workers, without changes, may come first: one stop each.)
      assert.deepEqual(stops.map((s) => s.testid).slice(-6), [
        'worker-folder',
        'worker-discard',
        'worker-branch',
        'worker-ask',
        'worker-apply',
        'worker-review',
      ]);
      assert.ok(await item.locator('[data-testid="worker-review"]').evaluate((el) => el === document.activeElement), 'this worker\u2019s Review');
      for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
      assert.equal((await focused(view)).testid, 'worker-discard');
      await page.keyboard.press('Enter');
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 15_000 });
      assert.match(await dialog.locator('.monaco-button:focus').innerText(), /^Discard/, 'the dialog offers Discard first');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached', timeout: 10_000 });
      await item.locator('[data-testid="worker-changes"]').waitFor({ state: 'hidden', timeout: 15_000 });
      const { stdout: branches } = await git(repo, 'branch', '--list');
      assert.equal(branches.trim(), '* main', 'Discard removed the worker\u2019s branch');
      assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'original line\n');
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });

  describe('high contrast', () => {
    after(async () => {
      await setColorTheme(ui().page, DEFAULT_THEME).catch(() => undefined);
    });

    for (const kind of ['hc', 'hcLight'] as const) {
      it(`${THEMES[kind].pick}: every control has a visible border and focus outline (test-results/a11y-${kind}-*.png)`, async () => {
        const { page, view } = await freshChat();
        await setColorTheme(page, THEMES[kind]);
        await view.locator(`body.${THEMES[kind].webview}`).waitFor({ timeout: 15_000 });
        const frame = await webviewFrame(view);
        // No named functions inside evaluate: the test's compiler would wrap them in a helper the page lacks.
        const borderless = await frame.evaluate(() => {
          const out: string[] = [];
          for (const el of document.querySelectorAll<HTMLElement>('button, textarea, input:not([type="checkbox"]), [role="option"]')) {
            if (!el.offsetParent) continue;
            const s = getComputedStyle(el);
            const drawn = ['top', 'right', 'bottom', 'left'].some(
              (side) =>
                parseFloat(s.getPropertyValue(`border-${side}-width`)) >= 1 &&
                s.getPropertyValue(`border-${side}-style`) !== 'none' &&
                !/^transparent$|rgba\(\d+, \d+, \d+, 0\)/.test(s.getPropertyValue(`border-${side}-color`)),
            );
            if (!drawn)
              out.push(
                `${el.tagName.toLowerCase()} ${el.dataset.testid ?? el.className} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}"`,
              );
          }
          return out;
        });
        assert.deepEqual(borderless, [], `${kind}: controls without a visible border`);

        await openChatByKeyboard(page);
        await composerFocused(view);
        await mkdir(resultsDir, { recursive: true });
        await page.screenshot({ path: join(resultsDir, `a11y-${kind}-composer.png`) });
        const stops = await pressUntil(page, view, 'Shift+Tab', 'new-chat', 16);
        assertVisible(stops);
        await page.screenshot({ path: join(resultsDir, `a11y-${kind}-new-chat.png`) });
        const outline = await frame.evaluate(() => {
          const s = getComputedStyle(document.activeElement!);
          return `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`;
        });
        assert.match(outline, /^(solid|dashed|dotted) [1-9]/, `${kind}: the focused control's outline: ${outline}`);
        await assertNoSeriousFindings(view, `${kind}, empty`);
      });
    }
  });
});
