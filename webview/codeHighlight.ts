// Syntax colouring with highlight.js: its core plus the languages chat answers use most (registering only these keeps
// the webview bundle small; an unknown language is shown plain, never guessed: auto-detection runs every grammar).
// Token classes are `tok-<scope>` (styles/code.css colours them from VS Code's theme variables). This module is the
// highlighter's own bundle (highlighterBundle.ts), run after the first paint; the page reaches it through highlighter.ts.
//
// What must stay true: the output is the escaped code wrapped in <span class="tok-…"> only, so its textContent is the
// code; no block longer than HIGHLIGHT_LIMIT (highlighter.ts) is highlighted on its own; and no grammar ever sees a long word.
// highlight.js is quadratic in the length of a word (20 KB of base64 in a css block took 1.5 s, 100 KB 34 s): some
// grammars retry a word-matching regex at every position of it. So every run of more than LONG_WORD non-space
// characters is swapped for one placeholder character before highlighting and put back, escaped, afterwards; it takes
// the colour of whatever token it sat in (a string, usually).
import type { LanguageFn } from 'highlight.js';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { LONG_IDLE_MS } from './idleTime';
import { grammarName } from './languageNames';
import { WARM_SAMPLES } from './warmSamples';

// Chosen by what replies hold and by size (the webview bundle must stay under 400 KB): scss, swift, php, powershell
// and kotlin were left out for 36 KB; their blocks show plain (scss is coloured as css).
const LANGUAGES: Record<string, LanguageFn> = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  makefile,
  markdown,
  plaintext,
  python,
  ruby,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};

// Grammars are registered on first use, not at load: building all 23 took about 25 ms of the panel's startup, before
// it could ask for its history. Their names and aliases are in languageNames.ts, which the page reads without them.

/** The grammars each one embeds (its subLanguage modes), registered with it so embedded code is coloured too. */
const EMBEDS: Record<string, string[]> = {
  dockerfile: ['bash'],
  javascript: ['xml', 'css'],
  markdown: ['xml'],
  shell: ['bash'],
  typescript: ['xml', 'css'],
  xml: ['css', 'javascript'],
  yaml: ['ruby'],
};
hljs.configure({ classPrefix: 'tok-' });

const registered = new Set<string>();
function register(name: string): void {
  if (registered.has(name)) return;
  registered.add(name);
  hljs.registerLanguage(name, LANGUAGES[name]!);
  for (const embedded of EMBEDS[name] ?? []) register(embedded);
}

const LONG_WORD = 120;
/** A private-use character: no grammar gives it a meaning, and hljs passes it through unescaped. */
const PLACEHOLDER = '\uE000';

/** Highlighted HTML for `code`, or undefined when the language is not bundled (the caller shows it plain). */
export function highlightCode(code: string, lang: string): string | undefined {
  const name = grammarName(lang);
  if (name === undefined || code.includes(PLACEHOLDER)) return undefined;
  register(name);
  const words: string[] = [];
  const short = withoutLongWords(code, words);
  // ignoreIllegals: half-written or unusual code is still coloured as well as it can be, never thrown on.
  const html = hljs.highlight(short, { language: name, ignoreIllegals: true }).value;
  if (!words.length) return html;
  let i = 0;
  const restored = html.replace(/\uE000/g, () => escapeHtml(words[i++] ?? ''));
  return i === words.length ? restored : undefined;
}

/**
 * A run of more than LONG_WORD characters other than space, tab and line breaks. Written as LONG_WORD + 1 of them and
 * any more: V8 ran `{121,}` over an 18 KB word in 5–30 ms, this in under 1 ms (a fresh page in Chromium, median of 8).
 */
const LONG_RUN = new RegExp(`[^ \\t\\n\\r]{${LONG_WORD + 1}}[^ \\t\\n\\r]*`, 'g');

/**
 * `code` with each run of more than LONG_WORD non-space characters replaced by PLACEHOLDER (pushed on `words`). A
 * regex, not a loop over the characters: the loop took 2–10 ms of an 18 KB word's render, in code the JIT had not
 * optimized yet (traced; 7 ms median in a fresh page).
 */
function withoutLongWords(code: string, words: string[]): string {
  return code.replace(LONG_RUN, (word) => {
    words.push(word);
    return PLACEHOLDER;
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * What warmUpHighlighter colours, in order, as [grammar, text]: for each grammar, the most used first, the grammar (a
 * bare word compiles it: the first block in TypeScript took 15–45 ms, a lost frame), then the regexes of its inner
 * modes (warmSamples.ts), then those again for two-byte text; each in an idle slice of its own if need be.
 */
export const WARM_STEPS: ReadonlyArray<readonly [grammar: string, text: string]> = WARM_SAMPLES.flatMap(([grammar, sample]) => [
  [grammar, 'x'] as const,
  [grammar, sample] as const,
  // V8 compiles a regex apart for one-byte and two-byte strings: a text with any character past U+00FF (a long word's
  // placeholder, an emoji, typographic quotes) ran them all compiled again (a css block with an 18 KB word did,
  // traced: 10–20 ms of its frame). A long word makes the sample two-byte the way such a block is.
  [grammar, `${sample}\n${'x'.repeat(LONG_WORD + 1)}`] as const,
]);

/** Idle time a sample's step needs: 0.2–20 ms of script once its grammar is compiled (a fresh page, load 3–10). */
const SAMPLE_IDLE_MS = 25;

/**
 * Colours WARM_STEPS in idle time, so no reply's code block pays for compiling them in a frame. A grammar's compile
 * only in a long idle period (no frame due, as when nothing moves): it takes up to 45 ms, and one started in the gap
 * between two frames of a scroll made a 67 ms frame. The samples take less, so an idle period runs several: one a
 * period, the warm-up was still going when a page had been idle for 5 periods, and a reply then compiled the rest.
 */
export function warmUpHighlighter(): void {
  let next = 0;
  const step = (deadline: IdleDeadline): void => {
    for (; next < WARM_STEPS.length; next++) {
      const [grammar, text] = WARM_STEPS[next]!;
      if (deadline.timeRemaining() < (text === 'x' ? LONG_IDLE_MS : SAMPLE_IDLE_MS)) break;
      highlightCode(text, grammar);
    }
    if (next < WARM_STEPS.length) requestIdleCallback(step);
  };
  requestIdleCallback(step);
}
