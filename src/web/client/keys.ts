import { h, put } from './dom.ts';

/** A keyboard shortcut of the page. */
export interface Shortcut {
  /** The key as `KeyboardEvent.key` reports it: "a", "j", "?", "Enter"… */
  key: string;
  /** What it does, for the help dialog. */
  label: string;
  run(e: KeyboardEvent): void;
}

const shortcuts: Shortcut[] = [];

/** Inputs that take no typed text: a letter pressed on a tick box is a shortcut, not input. */
const KEYLESS_INPUTS: ReadonlySet<string> = new Set(['checkbox', 'radio', 'button', 'submit', 'reset']);

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !KEYLESS_INPUTS.has(target.type);
  return target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

function renderHelp(): void {
  const list = document.getElementById('shortcuts-list');
  if (!list) return;
  put(
    list,
    [...shortcuts, { key: '?', label: 'Show this help', run: () => undefined }].map((s) => [
      h('dt', null, h('kbd', null, s.key)),
      h('dd', null, s.label),
    ]),
  );
}

let installed = false;

/**
 * Add page shortcuts. Single keys without modifiers, ignored while typing in a
 * field (except Escape) or while a dialog is open; "?" lists them. Shortcuts that decide open
 * a confirm step (see confirm.ts), they never decide on one key press.
 */
export function addShortcuts(list: Shortcut[]): void {
  shortcuts.push(...list);
  renderHelp();
  if (installed) return;
  installed = true;
  document.addEventListener('keydown', (e) => {
    // Escape still works from a field: it closes the panel the field is in (what was typed is kept, drafts.ts).
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || (typing(e.target) && e.key !== 'Escape')) return;
    if (document.querySelector('dialog[open]')) return;
    if (e.key === '?') {
      e.preventDefault();
      (document.getElementById('shortcuts') as HTMLDialogElement | null)?.showModal();
      return;
    }
    const s = shortcuts.find((x) => x.key === e.key);
    if (!s) return;
    e.preventDefault();
    s.run(e);
  });
}
