import { launchChromium, openWebviewPage, DARK_THEME } from './webviewPage';
(async () => {
  const browser = await launchChromium();
  const HC = { ...DARK_THEME, contrastBorder: '#6fc3df', contrastActiveBorder: '#f38518', 'sideBar-background': '#000000', 'input-background': '#000000', 'textCodeBlock-background': '#000000', 'chat-requestBackground': '#000000', 'editorWidget-background': '#0c141f', 'widget-border': '#6fc3df', 'panel-border': '#6fc3df', foreground: '#ffffff' };
  const LIGHT = { ...DARK_THEME, foreground: '#3b3b3b', descriptionForeground: '#717171', 'sideBar-background': '#f8f8f8', 'editor-foreground': '#3b3b3b', 'input-background': '#ffffff', 'input-foreground': '#3b3b3b', 'input-border': '#cecece', 'textCodeBlock-background': '#f2f2f2', 'textPreformat-background': '#0000001a', 'textPreformat-foreground': '#3b3b3b', 'chat-requestBackground': '#ffffff', 'chat-requestBorder': '#0000001a', 'widget-border': '#e5e5e5', 'panel-border': '#e5e5e5', 'editorWidget-background': '#f8f8f8', 'button-secondaryBackground': '#e5e5e5', 'button-secondaryForeground': '#3b3b3b', 'debugTokenExpression-name': '#9b46b0', 'debugTokenExpression-string': '#a31515', 'debugTokenExpression-number': '#098658', 'debugTokenExpression-boolean': '#0000ff', 'textLink-foreground': '#005fb8', 'inputValidation-infoBackground': '#d6ecf2', 'inputValidation-infoBorder': '#007acc', 'badge-background': '#cccccc', 'badge-foreground': '#3b3b3b', 'checkbox-background': '#f8f8f8', 'checkbox-border': '#cecece', 'checkbox-foreground': '#3b3b3b' };
  const state = { busy: false, model: 'gpt-4.1', routingAuto: true, setupHint: 'Baton needs GitHub Copilot. Sign in with GitHub, or configure another provider (OpenAI, Azure, Anthropic or a local Ollama) in the baton.provider settings.' };
  for (const [name, theme] of [['dark', DARK_THEME], ['light', LIGHT], ['hc', HC]] as const) {
    const wp = await openWebviewPage(browser, { theme, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [], permissions: [], state } }] });
    await wp.page.waitForSelector('[data-testid=empty-state]:not([hidden])');
    await wp.page.waitForTimeout(200);
    await wp.page.screenshot({ path: `/tmp/smoke/empty-${name}.png` });
    const md = 'Sure — here is a **fix**:\n\n```ts\nexport function add(a: number, b: number): number {\n  return a + b; // a very long comment line that will need to wrap in a narrow side panel to stay readable\n}\n```\n\n| Option | Default | Meaning |\n|---|:-:|---|\n| `baton.routing` | `auto` | Picks a model per request |\n\n1. Run `npm test`\n2. Check **output**\n\n> Tip: use [the docs](https://example.com).';
    await wp.push({ type: 'message/append', seq: 2, message: { id: 'u', role: 'user', content: 'Add two numbers', status: 'complete', ts: Date.now() } },
      { type: 'message/append', seq: 3, message: { id: 'a', role: 'assistant', content: md, status: 'complete', ts: Date.now(), route: { tier: 'fast', model: 'gpt-4.1-mini', reason: 'classifier' }, usage: { inputTokens: 812, outputTokens: 95 } } },
      { type: 'state', seq: 4, state: { ...state, setupHint: undefined, busy: true } },
      { type: 'message/append', seq: 5, message: { id: 'a2', role: 'assistant', content: 'Working on it', status: 'streaming', ts: Date.now() } });
    await wp.page.waitForTimeout(300);
    await wp.page.screenshot({ path: `/tmp/smoke/chat-${name}.png` });
    console.log(name, wp.errors, await wp.cspViolations());
    await wp.close();
  }
  await browser.close();
})();
