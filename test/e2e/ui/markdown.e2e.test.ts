/**
 * A streamed Markdown answer as the user sees it: heading, list, table and a highlighted code block, whose Copy button
 * puts the code on the clipboard and whose "Insert at cursor" button types it into the open editor; after a window
 * reload the answer comes back from the history with its code coloured.
 */
import * as assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ui } from './fixture';
import { completedReply, editorText, freshChat, messages, openBaton, runCommand, send } from './helpers';

const PROMPT = 'Show me a markdown sampler with a table and some TypeScript';
const CODE = ['export function greet(name: string): string {', '  return `Hello, ${name}!`; // 42', '}'].join('\n');
const REPLY = [
  '## Release notes',
  '',
  'What changed:',
  '',
  '- faster streaming',
  '- a **bold** claim',
  '',
  '| Tier | Model |',
  '| --- | --- |',
  '| fast | gpt-4.1 |',
  '| premium | claude-opus-4.6 |',
  '',
  '```ts',
  CODE,
  '```',
  '',
  'That is all.',
].join('\n');

describe('Markdown answers', function () {
  this.timeout(90_000);

  it('render heading, list, table and a highlighted code block whose Copy and Insert buttons work', async () => {
    const { page, view } = await freshChat();
    const { server, workbench, vscode, workspace } = ui();
    server.on({ lastUserIncludes: PROMPT, name: 'markdown sampler' }, { text: REPLY, chunks: 12, chunkDelayMs: 60 });

    await send(view, PROMPT);
    // It streams first (the open tail re-renders as it grows), then completes.
    await messages(view, 'assistant', 'streaming').first().waitFor({ timeout: 30_000 });
    const reply = await completedReply(view, 'That is all.');
    const body = reply.locator('.message-body');

    assert.equal(await body.locator('h2').innerText(), 'Release notes');
    assert.deepEqual(await body.locator('ul > li').allInnerTexts(), ['faster streaming', 'a bold claim']);
    assert.equal(await body.locator('ul > li strong').innerText(), 'bold');
    assert.deepEqual(await body.locator('table thead th').allInnerTexts(), ['Tier', 'Model']);
    assert.deepEqual(await body.locator('table tbody tr').allInnerTexts(), ['fast\tgpt-4.1', 'premium\tclaude-opus-4.6']);

    const block = body.locator('.code-block');
    assert.equal(await block.count(), 1);
    const code = block.locator('pre code');
    assert.equal(await code.textContent(), CODE, 'the code block shows the code exactly');
    // Syntax colouring: keywords, the string and the comment are wrapped in token spans with a theme colour.
    const tokens = await code
      .locator('span[class^="tok-"]')
      .evaluateAll((spans) => spans.map((s) => ({ kind: s.className, text: s.textContent, color: getComputedStyle(s).color })));
    const kinds = (kind: string) => tokens.filter((t) => t.kind === `tok-${kind}`).map((t) => t.text);
    assert.ok(kinds('keyword').includes('export') && kinds('keyword').includes('function'), JSON.stringify(tokens));
    assert.ok(
      kinds('string').some((s) => s?.startsWith('`Hello')),
      JSON.stringify(tokens),
    );
    assert.ok(kinds('comment').includes('// 42'), JSON.stringify(tokens));
    const plain = await code.evaluate((el) => getComputedStyle(el).color);
    assert.ok(
      tokens.some((t) => t.kind === 'tok-keyword' && t.color !== plain),
      `keywords are coloured differently from plain code (${plain})`,
    );

    // Copy: the button says so, and the clipboard holds the code.
    await workbench.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: vscode.url });
    const copy = block.locator('[data-testid="code-copy"]');
    await copy.click();
    await block.locator('[data-testid="code-copy"]', { hasText: 'Copied' }).waitFor({ timeout: 5_000 });
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), CODE);
    await block.locator('[data-testid="code-copy"]', { hasText: /^Copy$/ }).waitFor({ timeout: 5_000 });

    // Insert at cursor: into the editor that is open, at its cursor.
    const file = 'insert-target.ts';
    await writeFile(join(workspace, file), '// the code goes below\n');
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill(file);
    await page.locator(`.quick-input-widget .monaco-list-row[aria-label^="${file}"]`).first().click();
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-lines', { hasText: 'the code goes below' }).waitFor({ timeout: 15_000 });
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await block.locator('[data-testid="code-insert"]').click();
    await editor.locator('.view-lines', { hasText: 'return `Hello' }).waitFor({ timeout: 10_000 });
    assert.equal((await editorText(page)).trim(), `// the code goes below\n${CODE}`);
    // The inserted text is an unsaved edit: drop it and close the editor.
    await runCommand(page, 'View: Revert and Close Editor');
    await page.locator('.editor-instance .monaco-editor').waitFor({ state: 'detached', timeout: 10_000 });

    // From the history after a window reload: the same code, coloured (history code is coloured just after the
    // panel paints, so this waits for the tokens rather than reading them at once).
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench .activitybar').first().waitFor({ state: 'visible', timeout: 60_000 });
    const reloaded = await openBaton(page);
    const again = (await completedReply(reloaded, 'That is all.')).locator('.message-body pre code');
    await again.locator('span.tok-keyword', { hasText: 'function' }).first().waitFor({ timeout: 10_000 });
    assert.equal(await again.textContent(), CODE, 'the code from the history shows the code exactly');
    assert.ok(await again.locator('span.tok-comment', { hasText: '// 42' }).isVisible());
    assert.equal(await reloaded.locator('code.hl-pending').count(), 0, 'no code block is left uncoloured');
  });
});
