/**
 * Two VS Code windows (two workbenches of one code-server, each with its own extension host) on two folders, one
 * Baton storage: a message typed in one window shows in the other while it happens, marked with the window it came
 * from; the window that runs the conversation answers it, and the reply streams in both. Nothing is offered for
 * resending, and the model gets each message once.
 */
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Workbench } from '../codeServer';
import { repoRoot, ui } from './fixture';
import { completedReply, freshChat, messages, openBaton, send } from './helpers';

const FIRST = 'Window one asks: what is the build command?';
const FIRST_REPLY = 'The build command is npm run build, run from the root.';
const SECOND = 'Window two asks: and the test command?';
const SECOND_REPLY = 'The test command is npm test, which runs every layer.';

describe('Two windows', function () {
  this.timeout(240_000);
  let second: Workbench | undefined;

  after(async () => {
    await second?.close();
  });

  it('each window sees the other’s messages and replies live, marked with their window; the owner answers, once', async () => {
    const { view: one } = await freshChat();
    const { server, vscode, workspace } = ui();
    // Slow enough that window two opens while window one is still answering.
    server.on({ lastUserIncludes: FIRST }, { text: FIRST_REPLY, chunks: 4, chunkDelayMs: 700 });
    server.on({ lastUserIncludes: SECOND }, { text: SECOND_REPLY, chunks: 5, chunkDelayMs: 600 });
    await send(one, FIRST);

    const folder = join(dirname(workspace), 'second-project');
    await mkdir(folder, { recursive: true });
    const { provisionVscode } = await import('../../../scripts/provisionVscode.mjs');
    const { chromium } = await provisionVscode({ log: () => undefined });
    second = await vscode.open({ executablePath: chromium, folder, extensionDevelopmentPath: resolve(process.env.BATON_E2E_EXTENSION_PATH ?? repoRoot) });
    const two = await openBaton(second.page);

    // Window one's exchange, in window two, marked with window one's folder; never "interrupted".
    const firstThere = messages(two, 'user').filter({ hasText: FIRST });
    await firstThere.waitFor({ timeout: 30_000 });
    assert.equal(await firstThere.locator('[data-testid="window-tag"]').textContent(), `from window ${workspace.split('/').at(-1)}`);
    await completedReply(two, FIRST_REPLY, 30_000);
    await completedReply(one, FIRST_REPLY);
    assert.equal(await two.locator('[data-testid="resend"]').count(), 0, 'window two offers no Resend');

    // Typed in window two: shown in window one, marked; window one (the owner) answers; the reply streams in both.
    await send(two, SECOND);
    const secondInOne = messages(one, 'user').filter({ hasText: SECOND });
    await secondInOne.waitFor({ timeout: 5_000 });
    assert.equal(await secondInOne.locator('[data-testid="window-tag"]').textContent(), 'from window second-project');
    await messages(two, 'assistant', 'streaming').filter({ hasText: 'The test command' }).waitFor({ timeout: 15_000 });
    await completedReply(one, SECOND_REPLY);
    const replyInTwo = await completedReply(two, SECOND_REPLY, 15_000);
    assert.equal(await replyInTwo.locator('[data-testid="window-tag"]').count(), 1, 'the reply says it came from window one');
    assert.equal(await messages(two, 'assistant').count(), 2, 'one reply per message in window two');
    assert.equal(await messages(one, 'assistant').count(), 2, 'one reply per message in window one');
    for (const view of [one, two]) assert.equal(await view.locator('[data-testid="resend"]').count(), 0, 'nothing offered for resending');

    for (const prompt of [FIRST, SECOND])
      assert.equal(
        server.chatRequests().filter((r) => r.messages.at(-1)?.role === 'user' && (r.lastUserText ?? '').includes(prompt)).length,
        1,
        `"${prompt}" reached the model once`,
      );
  });
});
