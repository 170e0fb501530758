import { h, type Child } from './dom.ts';

/**
 * The confirm step of every decision: a modal dialog that says exactly what
 * will happen. Enter (on the focused Confirm button) confirms, Escape cancels.
 * Resolves true once, on confirm; the Confirm button disables itself so a
 * double click cannot send twice.
 *
 * When `signal` aborts (the request expired or was decided behind the
 * dialog), Confirm is disabled for good, the dialog says why (the abort
 * reason, a sentence) and focus moves to Close: a key press meant for
 * Confirm can then only close the dialog, never send a decision that no
 * longer applies.
 */
export function confirmStep(o: {
  title: string;
  body: Child;
  confirm: string;
  danger?: boolean;
  signal?: AbortSignal;
  /** A wider dialog whose body scrolls under a title that stays in view (a batch's summary). */
  wide?: boolean;
}): Promise<boolean> {
  return new Promise((resolve) => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    let settled = false;
    const done = (yes: boolean) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', stale);
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(yes && !o.signal?.aborted);
    };
    const ok = h(
      'button',
      {
        type: 'button',
        class: `btn ${o.danger ? 'btn-danger' : 'btn-primary'}`,
        'data-confirm': 'yes',
        onClick: () => {
          ok.disabled = true;
          done(true);
        },
      },
      o.confirm,
    );
    const cancel = h(
      'button',
      { type: 'button', class: 'btn', 'data-confirm': 'no', onClick: () => done(false) },
      'Cancel',
    );
    const notice = h('p', { class: 'alert alert-warn confirm-stale', role: 'alert', hidden: true });
    const dialog = h(
      'dialog',
      {
        class: o.wide ? 'confirm confirm-wide' : 'confirm',
        'aria-labelledby': 'confirm-title',
        'aria-describedby': 'confirm-body',
      },
      h('h2', { id: 'confirm-title' }, o.title),
      notice,
      h('div', { id: 'confirm-body', class: 'confirm-body' }, o.body),
      h('p', { class: 'muted small' }, 'Enter confirms · Esc cancels'),
      h('div', { class: 'confirm-actions' }, ok, cancel),
    );
    function stale(): void {
      ok.disabled = true;
      cancel.textContent = 'Close';
      notice.textContent = typeof o.signal?.reason === 'string' ? o.signal.reason : 'This decision no longer applies.';
      notice.hidden = false;
      dialog.dataset.stale = 'true';
      cancel.focus();
    }
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    ok.focus();
    if (o.signal?.aborted) stale();
    else o.signal?.addEventListener('abort', stale);
  });
}
