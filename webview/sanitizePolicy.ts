// What the sanitizer lets through, without DOM so Node tests read the same lists: the unit tests check that markdown-it's
// output stays inside them, and sanitize.ts gives them to DOMPurify.

/** Exactly what markdownRender.ts and codeHighlight.ts emit; anything else is dropped, its text kept. */
export const ALLOWED_TAGS = [
  'a',
  'blockquote',
  'br',
  'button',
  'code',
  'col',
  'colgroup',
  'del',
  'div',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'input',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'span',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];
export const ALLOWED_ATTR = ['href', 'title', 'class', 'start', 'type', 'disabled', 'checked', 'aria-label', 'data-action', 'data-testid', 'role', 'width'];
/** http(s), mailto, file, or no scheme at all (a relative path, #anchor); the same rule as safeHref. */
export const ALLOWED_URI_REGEXP = /^(?:(?:https?|mailto|file):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;
