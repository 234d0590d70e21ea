// A small syntax highlighter for the languages chat answers use most. It is a single regex pass per language, not a
// parser: good colouring for the common cases, never a crash or a slow path on odd input (every pattern is linear,
// with no nested quantifiers), and a bundle cost of a few KB instead of a grammar library.
// Invariant: the output is the escaped input with <span class="tok-…"> wrappers only, so textContent === input.

export type TokenKind =
  | 'keyword'
  | 'literal'
  | 'string'
  | 'number'
  | 'comment'
  | 'function'
  | 'type'
  | 'property'
  | 'tag'
  | 'attr'
  | 'variable'
  | 'meta'
  | 'inserted'
  | 'deleted';

interface Grammar {
  /** Alternation of named groups; group names are TokenKinds, or `ident` for words classified by the sets below. */
  pattern: RegExp;
  keywords?: ReadonlySet<string>;
  literals?: ReadonlySet<string>;
  /** Capitalised identifiers are types (JS/TS/Python class names). */
  capitalTypes?: boolean;
}

const words = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

const NUMBER = String.raw`(?<number>\b(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?[nLlFfDd]?)\b)`;
const DQ = String.raw`"(?:[^"\\\n]|\\.)*(?:"|$)`;
const SQ = String.raw`'(?:[^'\\\n]|\\.)*(?:'|$)`;
const BLOCK_COMMENT = String.raw`\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))`;
const IDENT = String.raw`(?<ident>[A-Za-z_$][\w$]*)`;

const JS_KEYWORDS = words(`
  abstract any as async await boolean break case catch class const constructor continue debugger declare default delete
  do else enum export extends finally for from function get if implements import in infer instanceof interface is keyof
  let module namespace never new number object of package private protected public readonly require return satisfies
  set static string super switch symbol this throw try type typeof unique unknown var void while with yield`);
const JS_LITERALS = words('true false null undefined NaN Infinity');

const PY_KEYWORDS = words(`
  and as assert async await break class continue def del elif else except finally for from global if import in is
  lambda match case nonlocal not or pass raise return try while with yield self cls`);
const PY_LITERALS = words('True False None');

const SH_KEYWORDS = words(`
  if then else elif fi for while until do done case esac function in return export local readonly declare unset shift
  source alias set exit break continue select time`);

const CLIKE_KEYWORDS = words(`
  abstract as async await auto bool break byte case catch char class const continue crate default defer delete do double
  dyn else enum explicit extends extern final finally float fn for func go goto if impl implements import in inline int
  interface internal let long loop match mod move mut namespace new object override package private protected pub public
  readonly ref return select self short signed sizeof static struct super switch template this throw throws trait try
  type typedef typename union unsafe unsigned use using var virtual void volatile when where while yield string val fun`);
const CLIKE_LITERALS = words('true false null nil None nullptr NULL');

const YAML_LITERALS = words('true false null yes no on off True False Null');

const GRAMMARS: Record<string, Grammar> = {
  js: {
    pattern: new RegExp(
      [
        String.raw`(?<comment>\/\/[^\n]*|${BLOCK_COMMENT})`,
        String.raw`(?<string>${DQ}|${SQ}|\x60(?:[^\x60\\]|\\[\s\S])*(?:\x60|$(?![\s\S])))`,
        String.raw`(?<meta>@[A-Za-z_$][\w$]*)`,
        NUMBER,
        IDENT,
      ].join('|'),
      'g',
    ),
    keywords: JS_KEYWORDS,
    literals: JS_LITERALS,
    capitalTypes: true,
  },
  json: {
    pattern: new RegExp(
      [
        String.raw`(?<comment>\/\/[^\n]*|${BLOCK_COMMENT})`,
        String.raw`(?<property>${DQ}(?=\s*:))`,
        String.raw`(?<string>${DQ})`,
        String.raw`(?<number>-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)`,
        IDENT,
      ].join('|'),
      'g',
    ),
    literals: words('true false null'),
  },
  python: {
    pattern: new RegExp(
      [
        String.raw`(?<comment>#[^\n]*)`,
        String.raw`(?<string>(?:\b[rRbBuUfF]{1,2})?(?:"""[\s\S]*?(?:"""|$(?![\s\S]))|'''[\s\S]*?(?:'''|$(?![\s\S]))|${DQ}|${SQ}))`,
        String.raw`(?<meta>@[A-Za-z_][\w.]*)`,
        NUMBER,
        IDENT,
      ].join('|'),
      'g',
    ),
    keywords: PY_KEYWORDS,
    literals: PY_LITERALS,
    capitalTypes: true,
  },
  bash: {
    pattern: new RegExp(
      [
        // A `#` starts a comment only at a word start (not in `$#` or `a#b`).
        String.raw`(?<comment>(?:^|(?<=[\s;]))#[^\n]*)`,
        String.raw`(?<string>${DQ}|'[^']*(?:'|$(?![\s\S])))`,
        String.raw`(?<variable>\$(?:\{[^}\n]*\}?|[A-Za-z_]\w*|[0-9#?@*$!-]))`,
        String.raw`(?<attr>(?<![\w-])--?[A-Za-z][\w-]*)`,
        String.raw`(?<number>\b\d+\b)`,
        String.raw`(?<ident>[A-Za-z_][\w-]*)`,
      ].join('|'),
      'gm',
    ),
    keywords: SH_KEYWORDS,
  },
  css: {
    pattern: new RegExp(
      [
        String.raw`(?<comment>${BLOCK_COMMENT}|\/\/[^\n]*)`,
        String.raw`(?<string>${DQ}|${SQ})`,
        String.raw`(?<keyword>@[\w-]+|!important\b)`,
        String.raw`(?<number>#[\da-fA-F]{3,8}\b|-?\b\d+(?:\.\d+)?(?:%|[a-zA-Z]+)?|-?\.\d+(?:%|[a-zA-Z]+)?)`,
        // A property is a name followed by `:` and a value that ends in ; or } (so `a:hover {` stays a selector).
        String.raw`(?<property>(?:--)?[A-Za-z][\w-]*(?=\s*:[^:{;}]*[;}]))`,
        String.raw`(?<function>[A-Za-z-][\w-]*(?=\())`,
        String.raw`(?<type>[.#][A-Za-z_-][\w-]*)`,
      ].join('|'),
      'g',
    ),
  },
  html: {
    pattern: new RegExp(
      [
        String.raw`(?<comment><!--[\s\S]*?(?:-->|$(?![\s\S])))`,
        String.raw`(?<meta><![A-Za-z][^>\n]*>?)`,
        String.raw`(?<tag><\/?[A-Za-z][\w:.-]*|\/?>)`,
        String.raw`(?<attr>[A-Za-z_:@][\w:.@-]*(?==))`,
        String.raw`(?<string>${DQ}|${SQ})`,
        String.raw`(?<keyword>&#?\w+;)`,
      ].join('|'),
      'g',
    ),
  },
  yaml: {
    pattern: new RegExp(
      [
        String.raw`(?<comment>(?:^|(?<=\s))#[^\n]*)`,
        String.raw`(?<property>^[ \t]*(?:- )?[\w.$/-][\w .$/-]*(?=:(?:\s|$)))`,
        String.raw`(?<string>${DQ}|${SQ})`,
        String.raw`(?<meta>^---$|^\.\.\.$|[&*][\w-]+|![\w!-]+)`,
        String.raw`(?<number>-?\b\d+(?:\.\d+)?\b)`,
        IDENT,
      ].join('|'),
      'gm',
    ),
    literals: YAML_LITERALS,
  },
  diff: {
    pattern: /(?<meta>^(?:@@[^\n]*|diff [^\n]*|index [^\n]*|\+\+\+[^\n]*|---[^\n]*))|(?<inserted>^\+[^\n]*)|(?<deleted>^-[^\n]*)/gm,
  },
  clike: {
    pattern: new RegExp(
      [
        String.raw`(?<comment>\/\/[^\n]*|${BLOCK_COMMENT})`,
        String.raw`(?<string>${DQ}|'(?:[^'\\\n]|\\.){0,8}'|\x60[^\x60]*\x60?)`,
        String.raw`(?<meta>#\s*[a-z]+\b|@[A-Za-z_]\w*)`,
        NUMBER,
        IDENT,
      ].join('|'),
      'g',
    ),
    keywords: CLIKE_KEYWORDS,
    literals: CLIKE_LITERALS,
    capitalTypes: true,
  },
};

const ALIASES: Record<string, string> = {
  js: 'js', javascript: 'js', jsx: 'js', mjs: 'js', cjs: 'js', ts: 'js', typescript: 'js', tsx: 'js', mts: 'js',
  cts: 'js', node: 'js',
  json: 'json', jsonc: 'json', json5: 'json',
  py: 'python', python: 'python', python3: 'python', py3: 'python',
  bash: 'bash', sh: 'bash', shell: 'bash', zsh: 'bash', console: 'bash', shellscript: 'bash', shellsession: 'bash',
  css: 'css', scss: 'css', less: 'css',
  html: 'html', htm: 'html', xml: 'html', svg: 'html', xhtml: 'html', vue: 'html',
  yaml: 'yaml', yml: 'yaml',
  diff: 'diff', patch: 'diff',
  c: 'clike', h: 'clike', cpp: 'clike', 'c++': 'clike', cc: 'clike', hpp: 'clike', cs: 'clike', csharp: 'clike',
  java: 'clike', kotlin: 'clike', kt: 'clike', go: 'clike', golang: 'clike', rust: 'clike', rs: 'clike',
  swift: 'clike', scala: 'clike', dart: 'clike', php: 'clike',
};

/** The grammar key for a fence info string's language, or undefined when we don't colour it. */
export function grammarFor(lang: string): string | undefined {
  return ALIASES[lang.trim().toLowerCase()];
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function span(kind: TokenKind, text: string): string {
  return `<span class="tok-${kind}">${escapeHtml(text)}</span>`;
}

/** Highlighted HTML for `code`; plain escaped text for languages we don't know. */
export function highlight(code: string, lang: string): string {
  const key = grammarFor(lang);
  const grammar = key ? GRAMMARS[key] : undefined;
  if (!grammar) return escapeHtml(code);
  // A fresh RegExp per call: the shared one keeps lastIndex, and highlight() must be re-entrant.
  const re = new RegExp(grammar.pattern.source, grammar.pattern.flags);
  let out = '';
  let last = 0;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const text = m[0];
    if (text.length === 0) {
      re.lastIndex++;
      continue;
    }
    if (m.index > last) out += escapeHtml(code.slice(last, m.index));
    last = m.index + text.length;
    const groups = m.groups ?? {};
    let kind: TokenKind | undefined;
    for (const name in groups) {
      if (groups[name] !== undefined) {
        kind = name === 'ident' ? classifyIdent(grammar, text, code, last) : (name as TokenKind);
        break;
      }
    }
    out += kind ? span(kind, text) : escapeHtml(text);
  }
  if (last < code.length) out += escapeHtml(code.slice(last));
  return out;
}

function classifyIdent(grammar: Grammar, word: string, code: string, end: number): TokenKind | undefined {
  if (grammar.keywords?.has(word)) return 'keyword';
  if (grammar.literals?.has(word)) return 'literal';
  let i = end;
  while (code.charCodeAt(i) === 32) i++;
  if (code[i] === '(') return 'function';
  if (grammar.capitalTypes && /^[A-Z][a-z0-9]/.test(word)) return 'type';
  return undefined;
}
