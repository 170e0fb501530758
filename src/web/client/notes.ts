import { api, ApiError } from './api.ts';
import { h, put } from './dom.ts';
import { live } from './live.ts';
import { when } from './time.ts';
import type { Me } from './types.ts';

/**
 * Internal notes on a request: what reviewers tell each other ("called the customer, the receipt is
 * on its way"). Labelled as internal everywhere they show — never part of a decision, never sent to
 * the agent — and kept apart from the reject and respond messages, which the agent does read.
 * Other reviewers' notes arrive live (`note.added`).
 */

/** A note as the API returns it. */
export interface NoteView {
  id: string;
  requestId: string;
  author: string;
  authorName: string;
  text: string;
  createdAt: string;
}

const LABEL = 'Internal notes — for reviewers, not sent to the agent';

function noteItem(n: NoteView, me: Me | undefined): HTMLElement {
  return h(
    'li',
    { class: 'note', 'data-note-id': n.id },
    h(
      'p',
      { class: 'note-head muted small' },
      h('strong', null, n.author === me?.id ? 'You' : n.authorName),
      ' · ',
      h('time', { datetime: n.createdAt }, when(n.createdAt)),
    ),
    h('p', { class: 'note-text user-text' }, n.text),
  );
}

/** The notes of `requestId` kept current in `list`; returns a function that reads them again. */
function follow(requestId: string, list: HTMLElement, me: Me | undefined, empty: string): () => Promise<void> {
  const load = async () => {
    try {
      const r = await api<{ items: NoteView[] }>(`/api/v1/approvals/${encodeURIComponent(requestId)}/notes`);
      put(list, r.items.length ? r.items.map((n) => noteItem(n, me)) : h('li', { class: 'muted small' }, empty));
    } catch {
      // A request the reviewer may not read has no notes to show them.
      put(list);
    }
  };
  live().on((e) => {
    if (e.type === 'note.added' && e.requestId === requestId) void load();
  });
  live().onResync(() => void load());
  void load();
  return load;
}

/**
 * The card's notes: the list and a form to add one. One element for the page's life (mount it
 * once), so a note being typed survives the card's re-renders.
 */
export function notesPanel(requestId: string, me: Me): HTMLElement {
  const list = h('ol', { class: 'notes', id: 'notes-list' });
  const load = follow(requestId, list, me, 'No notes yet.');
  const text = h('textarea', { id: 'note-text', rows: 2, maxlength: 2000, 'aria-describedby': 'note-hint' });
  const error = h('p', { class: 'field-error', id: 'note-error' });
  const add = h('button', { type: 'submit', class: 'btn btn-small', id: 'note-add' }, 'Add note');
  const form = h(
    'form',
    { class: 'note-form', novalidate: true },
    h('label', { for: 'note-text' }, 'Add an internal note'),
    text,
    h(
      'p',
      { class: 'field-hint', id: 'note-hint' },
      'Other reviewers see it here and on the thread page. The agent never does.',
    ),
    error,
    add,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const body = text.value.trim();
    if (!body) {
      error.textContent = 'Write the note first.';
      text.focus();
      return;
    }
    add.disabled = true;
    void api(`/api/v1/approvals/${encodeURIComponent(requestId)}/notes`, { text: body })
      .then(async () => {
        text.value = '';
        error.textContent = '';
        await load();
      })
      .catch((err: unknown) => {
        error.textContent = err instanceof ApiError ? err.message : 'The note could not be saved.';
      })
      .finally(() => (add.disabled = false));
  });
  return h(
    'section',
    { class: 'internal-notes', id: 'internal-notes', 'aria-labelledby': 'h-notes' },
    h('h2', { id: 'h-notes' }, LABEL),
    list,
    form,
  );
}

const lists = new Map<string, HTMLElement>();

/**
 * A request's notes, read-only (the thread page): shown only when there are some. One element per
 * request for the page's life, so a page that re-renders keeps it (and follows it once).
 */
export function notesList(requestId: string, me?: Me): HTMLElement {
  const known = lists.get(requestId);
  if (known) return known;
  const list = h('ol', { class: 'notes' });
  const box = h('div', { class: 'internal-notes internal-notes-thread', 'data-notes-for': requestId, hidden: true });
  put(box, h('p', { class: 'muted small' }, h('strong', null, LABEL)), list);
  follow(requestId, list, me, '');
  // Shown once a note is there (the list holds only the empty line otherwise).
  new MutationObserver(() => (box.hidden = list.querySelector('li.note') === null)).observe(list, { childList: true });
  lists.set(requestId, box);
  return box;
}
