import { h, type Child } from './dom.ts';

/**
 * The confirm step of every decision: a modal dialog that says exactly what
 * will happen. Enter (on the focused Confirm button) confirms, Escape cancels.
 * Resolves true once, on confirm; the Confirm button disables itself so a
 * double click cannot send twice.
 */
export function confirmStep(o: { title: string; body: Child; confirm: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    let settled = false;
    const done = (yes: boolean) => {
      if (settled) return;
      settled = true;
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(yes);
    };
    const ok = h('button', { type: 'button', class: `btn ${o.danger ? 'btn-danger' : 'btn-primary'}`, 'data-confirm': 'yes', onClick: () => {
      ok.disabled = true;
      done(true);
    } }, o.confirm);
    const cancel = h('button', { type: 'button', class: 'btn', onClick: () => done(false) }, 'Cancel');
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-body' },
      h('h2', { id: 'confirm-title' }, o.title),
      h('div', { id: 'confirm-body', class: 'confirm-body' }, o.body),
      h('p', { class: 'muted small' }, 'Enter confirms · Esc cancels'),
      h('div', { class: 'confirm-actions' }, ok, cancel),
    );
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    ok.focus();
  });
}
