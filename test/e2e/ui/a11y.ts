/**
 * Accessibility probes for the UI tests, run inside the real Baton webview in code-server: axe-core (the engine of the
 * accessibility checkers people use), what has the keyboard focus and whether it is visibly marked, and what the
 * screen-reader live region said.
 */
import { readFileSync } from 'node:fs';
import type { Frame, FrameLocator } from 'playwright-core';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** The webview document's frame (for evaluate calls that must not go through the page's CSP-bound eval). */
export async function webviewFrame(view: FrameLocator): Promise<Frame> {
  const handle = await view.locator('html').elementHandle({ timeout: 15_000 });
  const frame = await handle?.ownerFrame();
  if (!frame) throw new Error('the Baton webview has no frame');
  return frame;
}

/**
 * axe-core on the webview as it is now (WCAG 2.x A and AA rules and best practices). Its source is evaluated through
 * the DevTools protocol, which the webview's CSP does not govern; nothing is added to the page's own scripts.
 */
export async function axeFindings(view: FrameLocator): Promise<AxeFinding[]> {
  const frame = await webviewFrame(view);
  if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(AXE_SOURCE);
  return frame.evaluate(async () => {
    // The page is transparent: the workbench's side bar shows through (themes.e2e.test.ts checks the colour is
    // --vscode-sideBar-background). axe cannot see across the iframe and would measure against white, so the colour
    // behind the page is painted into it for the run (CSSOM, which the CSP allows), then taken away.
    const root = document.documentElement;
    root.style.backgroundColor = getComputedStyle(root).getPropertyValue('--vscode-sideBar-background').trim();
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            opts: object,
          ): Promise<{ violations: Array<{ id: string; impact?: string; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    root.style.backgroundColor = '';
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      targets: v.nodes.map((n) => `${n.target.map(String).join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 240)}`),
    }));
  });
}

/** Only what fails people outright: axe's serious and critical findings. */
export async function seriousAxeFindings(view: FrameLocator): Promise<AxeFinding[]> {
  return (await axeFindings(view)).filter((f) => f.impact === 'serious' || f.impact === 'critical');
}

export function describeFindings(findings: AxeFinding[]): string {
  return findings.map((f) => `${f.impact} ${f.id}: ${f.help}\n      ${f.targets.slice(0, 5).join('\n      ')}`).join('\n');
}

export interface Focused {
  /** Tag, test id and accessible label of the focused element; 'body' when the focus is nowhere. */
  what: string;
  testid: string;
  /** The focus ring: a non-transparent outline at least 1 px wide, a box-shadow, or a border in the focus colour. */
  visible: boolean;
}

/** What has the focus inside the webview, and whether the user can see it. */
export async function focused(view: FrameLocator): Promise<Focused> {
  const frame = await webviewFrame(view);
  return frame.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body || el === document.documentElement) return { what: 'body', testid: '', visible: false };
    // An elements-lite checkbox hides its input (1 px, clipped) and draws the box in its label: the mark is there.
    const drawn = el instanceof HTMLInputElement && el.type === 'checkbox' ? el.closest('.vscode-checkbox')?.querySelector('label .icon') : null;
    const s = getComputedStyle(drawn ?? el);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1 && !/rgba\(\d+, \d+, \d+, 0\)|transparent/.test(s.outlineColor);
    const shadow = s.boxShadow !== 'none';
    // Or a border in the theme's focus colour (elements-lite's icon buttons mark the focus so).
    const probe = document.createElement('span');
    probe.style.color = 'var(--vscode-focusBorder)';
    document.body.append(probe);
    const focusColor = getComputedStyle(probe).color;
    probe.remove();
    const border = parseFloat(s.borderTopWidth) >= 1 && s.borderTopStyle !== 'none' && s.borderTopColor === focusColor;
    const label = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? '';
    return { what: `${el.tagName.toLowerCase()} "${label}"`, testid: el.dataset.testid ?? '', visible: outline || shadow || border };
  });
}

/** Starts recording every text the live region (the announcer) says. */
export async function recordAnnouncements(view: FrameLocator): Promise<void> {
  const frame = await webviewFrame(view);
  await frame.evaluate(() => {
    const w = window as unknown as { announced: string[]; announcedObserver?: MutationObserver };
    w.announcedObserver?.disconnect();
    w.announced = [];
    const el = document.querySelector('[data-testid="announcer"]')!;
    w.announcedObserver = new MutationObserver(() => {
      const text = el.textContent?.trim();
      if (text) w.announced.push(text);
    });
    w.announcedObserver.observe(el, { childList: true, characterData: true, subtree: true });
  });
}

export async function announcements(view: FrameLocator): Promise<string[]> {
  const frame = await webviewFrame(view);
  return frame.evaluate(() => (window as unknown as { announced: string[] }).announced ?? []);
}

/** Polls an asynchronous probe of the page until it returns something truthy (support/waitFor is for synchronous ones). */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
