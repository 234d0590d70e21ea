// Element construction without innerHTML: text always goes in as text nodes. The one place HTML strings enter the
// DOM is rendered markdown and code, through the sanitizer (see sanitize.ts).

export type Attrs = Record<string, string | number | boolean | undefined | null>;
export type Child = Node | string | null | undefined | false;

/** Creates an element; `true` sets a boolean attribute, `false`/`undefined`/`null` leave it out. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
}

/** Sets or clears a boolean attribute. */
export function toggleAttr(el: Element, name: string, on: boolean): void {
  if (on) el.setAttribute(name, '');
  else el.removeAttribute(name);
}

/** Replaces an element's children with text, touching the DOM only when the text changed. */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export type ButtonAppearance = 'primary' | 'secondary' | 'icon';

/** @vscode-elements/elements-lite's classes for each look (its CSS is bundled into dist/webview.css). */
const APPEARANCE_CLASSES: Record<ButtonAppearance, string[]> = {
  primary: ['vscode-button'],
  secondary: ['vscode-button', 'secondary'],
  icon: ['vscode-action-button'],
};
const ALL_APPEARANCE_CLASSES = ['vscode-button', 'secondary', 'vscode-action-button'];

/**
 * A native button styled by @vscode-elements/elements-lite, the CSS-only part of the maintained successor of the
 * archived webview UI toolkit: native elements, so no web component's design system costs the first paint.
 */
export function button(appearance: ButtonAppearance, attrs: Attrs, label: string): HTMLButtonElement {
  const el = h('button', { type: 'button', ...attrs }, label);
  setAppearance(el, appearance);
  return el;
}

export function setAppearance(el: HTMLElement, appearance: ButtonAppearance): void {
  el.classList.remove(...ALL_APPEARANCE_CLASSES);
  el.classList.add(...APPEARANCE_CLASSES[appearance]);
  el.dataset.appearance = appearance;
}

/**
 * A checkbox as @vscode-elements/elements-lite draws it (class vscode-checkbox): the native input, visually hidden but
 * focusable and announced as ever, and a label that draws the box, its check mark and the text.
 */
export function checkbox(attrs: Attrs & { id: string }, text: string): { el: HTMLElement; input: HTMLInputElement } {
  const { id, class: extra, title, ...inputAttrs } = attrs;
  const input = h('input', { type: 'checkbox', id, ...inputAttrs });
  const box = h('span', { class: 'icon' }, checkMark());
  const label = h('label', { for: id }, box, h('span', { class: 'text' }, text));
  const el = h('div', { class: `vscode-checkbox${extra ? ` ${String(extra)}` : ''}`, title }, input, label);
  return { el, input };
}

/** The check mark elements-lite shows in a checked box (it expects an icon font; an inline SVG needs no font file). */
function checkMark(): SVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'icon-checked');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M3.5 8.5l3 3 6-7');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '1.6');
  svg.append(path);
  return svg;
}
