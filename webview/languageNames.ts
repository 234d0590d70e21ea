// The names of the grammars the code highlighter has (webview/codeHighlight.ts) and the names a fence may call them
// by. Kept apart from highlight.js, in both of the panel's bundles: the page decides which blocks to colour before
// the highlighter's bundle has run (see highlighter.ts), and the highlighter picks the grammar with the same table.

/** Each bundled grammar's own aliases (as it declares them) plus the names models write that it does not list. */
const ALIASES: Record<string, string[]> = {
  bash: ['sh', 'zsh'],
  c: ['h'],
  cpp: ['cc', 'c++', 'h++', 'hpp', 'hh', 'hxx', 'cxx'],
  csharp: ['cs', 'c#'],
  css: ['scss', 'sass', 'less'],
  diff: ['patch'],
  dockerfile: ['docker'],
  go: ['golang'],
  ini: ['toml', 'env', 'dotenv'],
  java: ['jsp'],
  javascript: ['js', 'jsx', 'mjs', 'cjs', 'node'],
  json: ['jsonc', 'json5'],
  makefile: ['mk', 'mak', 'make'],
  markdown: ['md', 'mkdown', 'mkd'],
  plaintext: ['text', 'txt', 'output', 'log'],
  python: ['py', 'gyp', 'ipython'],
  ruby: ['rb', 'gemspec', 'podspec', 'thor', 'irb'],
  rust: ['rs'],
  shell: ['console', 'shellsession', 'terminal'],
  sql: [],
  typescript: ['ts', 'tsx', 'mts', 'cts'],
  xml: ['html', 'xhtml', 'rss', 'atom', 'xjb', 'xsd', 'xsl', 'plist', 'wsf', 'svg'],
  yaml: ['yml'],
};

/** The bundled grammars' names. */
export const GRAMMARS = Object.keys(ALIASES);

const NAMES = new Map<string, string>();
for (const name of GRAMMARS) {
  NAMES.set(name, name);
  for (const alias of ALIASES[name]!) NAMES.set(alias, name);
}

/** The bundled grammar `lang` (a fence's info word) names, if any. */
export function grammarName(lang: string): string | undefined {
  return lang === '' ? undefined : NAMES.get(lang.toLowerCase());
}

/** Whether `lang` (a fence's info word) names a grammar that is bundled. */
export function knowsLanguage(lang: string): boolean {
  return grammarName(lang) !== undefined;
}
