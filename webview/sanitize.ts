// The one door through which HTML strings enter the panel's DOM: rendered markdown and highlighted code pass DOMPurify
// first. markdown-it with `html: false` already emits only its own tags with checked link targets; this is the
// second wall, so a bug in a renderer rule or a library update cannot put a script, an event handler, a style or an
// unsafe URL into the panel.
import DOMPurify from 'dompurify';
import { ALLOWED_ATTR, ALLOWED_TAGS, ALLOWED_URI_REGEXP } from './sanitizePolicy';

// The package's own instance, made for this window when it loads: making a second one (DOMPurify(window)) built
// every default tag and attribute set again before the first paint.
const purify = DOMPurify;
purify.addHook('uponSanitizeAttribute', (node, data) => {
  // The only input is the task list's disabled checkbox.
  if (node.nodeName === 'INPUT' && data.attrName === 'type' && data.attrValue !== 'checkbox') data.keepAttr = false;
  if (data.attrName === 'href' && /^\s*\/\//.test(data.attrValue)) data.keepAttr = false;
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'INPUT') node.setAttribute('disabled', '');
});

const CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOWED_URI_REGEXP,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
} as const;

// Set once: a config passed with each call is parsed again on each call (its tag and attribute sets rebuilt), and a
// streamed list or table sanitizes each frame's new rows.
purify.setConfig(CONFIG);

/** Sanitized nodes for an HTML string, ready to insert. */
export function sanitizedFragment(html: string): DocumentFragment {
  if (!html) return document.createDocumentFragment();
  return purify.sanitize(html) as unknown as DocumentFragment;
}

/** Replaces `el`'s children with the sanitized HTML. */
export function setSafeHtml(el: Element, html: string): void {
  el.replaceChildren(sanitizedFragment(html));
}
