import { findHidden, reveal } from './reveal.ts';

/**
 * DOM building without markup parsing: every string becomes a text node, so
 * text from customers, models or the API can never turn into elements,
 * attributes or script. (ESLint forbids innerHTML and its relatives here.)
 *
 * Every string is also shown with its hidden characters revealed (bidi
 * overrides, zero-width and control characters become marked
 * `⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩` spans, src/core/reveal.ts): built here, no
 * surface of the page can show a reviewer `ACC-42` for the bytes `\u202e24-CCA`.
 * Only input values (set with `.value`) keep the exact text; the edit form
 * warns beside them.
 */

export type Child = Node | string | number | null | undefined | false | readonly Child[];
type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue | ((e: Event) => void)>;

/** `text` as nodes: plain text, with each hidden character as a marked, visible `⟨U+XXXX …⟩`. */
export function revealedText(text: string): Node {
  const hidden = findHidden(text);
  if (hidden.length === 0) return document.createTextNode(text);
  const out = document.createDocumentFragment();
  let at = 0;
  for (const c of hidden) {
    if (c.index > at) out.appendChild(document.createTextNode(text.slice(at, c.index)));
    const char = String.fromCodePoint(c.codePoint);
    out.appendChild(
      h(
        'span',
        { class: 'hidden-char', title: 'hidden character: not visible in plain text, but part of the value' },
        reveal(char),
      ),
    );
    at = c.index + char.length;
  }
  if (at < text.length) out.appendChild(document.createTextNode(text.slice(at)));
  return out;
}

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child as readonly Child[]) append(parent, c);
    return;
  }
  parent.appendChild(child instanceof Node ? child : revealedText(String(child as string | number)));
}

// Attributes people read (tooltips, accessible names) are revealed too; the rest (value, href, class…) stay exact.
const READ_ATTRS = new Set(['title', 'aria-label', 'aria-description', 'alt', 'placeholder']);

function setAttrs(el: Element, attrs: Attrs | null | undefined): void {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') {
      // `onClick` → the "click" event.
      el.addEventListener(k.slice(2).toLowerCase(), v);
    } else if (v === true) {
      el.setAttribute(k, '');
    } else if (v !== false && v !== null && v !== undefined) {
      el.setAttribute(k, READ_ATTRS.has(k) ? reveal(String(v)) : String(v));
    }
  }
}

/**
 * An HTML element with attributes and children.
 * @example
 * h('p', { class: 'who' }, 'Approved by ', name) // name stays text, whatever it contains
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  for (const c of children) append(el, c);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element (charts). */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  for (const c of children) append(el, c);
  return el;
}

/** Replace the children of `el`. */
export function put(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  for (const c of children) append(el, c);
}

/** The element with `id`; throws when the page lacks it (a bug, not a user error). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** A short-lived status message in the page's toast area (announced by screen readers). */
export function toast(message: string, kind: 'info' | 'ok' | 'warn' = 'info'): void {
  const area = document.getElementById('toast');
  if (!area) return;
  const item = h('p', { class: `toast-item toast-${kind}` }, message);
  area.appendChild(item);
  setTimeout(() => item.remove(), 6000);
}

/** Call `fn` at most once per `ms`, after the last call (live updates arrive in bursts). */
export function debounce(fn: () => void, ms: number): () => void {
  let timer: number | undefined;
  return () => {
    clearTimeout(timer);
    timer = window.setTimeout(fn, ms);
  };
}
