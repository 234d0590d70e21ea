import { launchChromium, openWebviewPage } from './webviewPage';
import type { HostMessage, Snapshot } from '../../src/shared/protocol';
async function main() {
  const browser = await launchChromium();
  const now = Date.now();
  const snapshot: Snapshot = {
    messages: [
      { id: 'u1', role: 'user', content: 'How do I run the tests?\nAnd <b>fix</b> them', status: 'complete', ts: now - 60000 },
      { id: 'a1', role: 'assistant', content: '## Running tests\n\nUse **npm** and `mocha`:\n\n```bash\nnpm test -- --grep "unit" # all unit\n```\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n- one\n- two [link](https://example.com)\n\n> note', status: 'complete', ts: now - 50000, route: { tier: 'standard', model: 'gpt-4.1', reason: 'classifier' }, usage: { inputTokens: 1234, outputTokens: 567 } },
      { id: 'b1', role: 'background', source: 'fix-tests', content: 'Fixed **3** tests.', status: 'complete', ts: now - 40000 },
      { id: 'e1', role: 'error', content: 'Copilot is not signed in.', status: 'failed', ts: now - 30000, action: { label: 'Sign in', command: 'baton.signIn' } },
      { id: 'u2', role: 'user', content: 'Please continue', status: 'interrupted', ts: now - 20000 },
    ],
    workers: [
      { name: 'fix-tests', workingDir: '/work/repo', state: 'running', startedAt: now - 65000, lastLine: 'Running mocha…' },
      { name: 'docs', workingDir: '/work/repo/docs', state: 'done', startedAt: now - 200000, lastLine: 'Wrote README.md' },
    ],
    permissions: [{ id: 'p1', worker: 'fix-tests', kind: 'shell', detail: 'npm test -- --grep unit' }],
    state: { busy: true, model: 'gpt-4.1', routingAuto: true },
  };
  const wp = await openWebviewPage(browser, { replyToReady: [{ type: 'snapshot', seq: 1, snapshot } as HostMessage] });
  const { page } = wp;
  page.on('console', (m) => console.log('console:', m.text()));
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.waitForSelector('[data-testid=message]');
  await page.waitForTimeout(300);
  await page.screenshot({ path: '/tmp/smoke/1.png', fullPage: false });
  console.log('focused:', await page.evaluate('document.activeElement && document.activeElement.outerHTML.slice(0,80)'));
  // streaming
  await wp.push({ type: 'message/append', seq: 2, message: { id: 'a2', role: 'assistant', content: '', status: 'streaming', ts: Date.now() } });
  const text = 'Here is code:\n\n```ts\nconst x = 1;\n```\n\nDone **now**.';
  let seq = 3;
  for (const ch of text.match(/.{1,3}/gs)!) await wp.push({ type: 'message/delta', seq: seq++, id: 'a2', delta: ch });
  await page.waitForTimeout(100);
  console.log('streaming html:', await page.evaluate(`document.querySelector('[data-id=a2] .message-body').innerHTML`));
  await wp.push({ type: 'message/update', seq: seq++, id: 'a2', patch: { status: 'complete' } });
  await page.waitForTimeout(100);
  console.log('final html:', await page.evaluate(`document.querySelector('[data-id=a2] .message-body').innerHTML`));
  // clicks
  await page.click('[data-testid=perm-once]');
  await page.click('[data-id=a1] a');
  await page.click('[data-id=a1] [data-testid=code-insert]');
  await page.click('[data-testid=resend]');
  await page.click('[data-testid=error-action]');
  await page.click('[data-testid=worker-card][data-name=docs]');
  await page.focus('[data-testid=worker-card][data-name=fix-tests]');
  await page.keyboard.press('Enter');
  await page.click('[data-testid=stop]');
  await page.click('[data-testid=new-chat]');
  await page.click('[data-testid=routing-toggle]');
  await page.fill('[data-testid=composer]', 'hello');
  await page.keyboard.press('Enter');
  await page.focus('[data-testid=composer]');
  await page.keyboard.press('ArrowUp');
  console.log('recalled:', await page.inputValue('[data-testid=composer]'));
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('second line');
  await page.click('[data-testid=send]');
  // gap
  await wp.push({ type: 'state', seq: seq + 5, state: { busy: false, model: 'x', routingAuto: false } });
  console.log('posted:', JSON.stringify(await wp.posted()));
  console.log('violations:', await wp.cspViolations());
  console.log('elapsed:', await page.textContent('[data-name=fix-tests] [data-testid=worker-elapsed]'));
  await page.screenshot({ path: '/tmp/smoke/2.png' });
  await wp.close();
  await browser.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
