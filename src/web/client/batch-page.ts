import type { BatchOutcome } from '../batch-types.ts';
import { api, ApiError } from './api.ts';
import { confirmBatch } from './batch-confirm.ts';
import { itemCard, pageIndex } from './batch-item.ts';
import type { Batch, BatchResult, BatchState } from './batch-model.ts';
import { allSettled } from './batch-outcome.ts';
import { alerts, buttons, cleanIds, countLine, excludedList, title } from './batch-view.ts';
import { byId, debounce, h, put } from './dom.ts';
import { addShortcuts } from './keys.ts';
import { live, type Live } from './live.ts';
import { startShell } from './shell.ts';
import type { LiveEvent } from './types.ts';

/**
 * Batch review: a page of at most 100 of the pending requests of one thread or one tool that you
 * can approve, with where it stands among them all ("100 of 222 — the next 100 after these").
 * Nothing is ticked for you unless the operator allows warning-free approve-tier requests
 * (`preselectUpTo`); escalate-tier requests never are. Each item shows what warns about it (the
 * same action twice, other requests on the same order or customer, hidden or look-alike
 * characters); the confirm step sums the ticked ones up in words. The approval binds to exactly
 * the list shown (the server checks it against the digest it gave). After sending, each item
 * follows its request to its end — ran, failed and why, did not run and why — as live events
 * arrive.
 */

const root = byId('batch');
const query = new URLSearchParams(window.location.search);
const group: Record<string, string> = query.get('threadId')
  ? { threadId: query.get('threadId')! }
  : { tool: query.get('tool') ?? '' };
const after = query.get('after');
const s: BatchState = {
  batch: undefined,
  result: undefined,
  outcomes: new Map(),
  picked: new Set(),
  busy: false,
  notices: [],
};

function render(): void {
  const b = s.batch;
  if (!b) return;
  const index = pageIndex(b);
  // The page is drawn anew on each change: keep the keyboard where it was (a tick box, a button).
  const focused = document.activeElement?.id;
  put(
    root,
    h(
      'article',
      { class: 'card' },
      h('header', { class: 'page-head' }, title(b)),
      countLine(b),
      alerts(s, b),
      b.items.length
        ? h(
            'p',
            { class: 'digest-line' },
            `Approving covers only the requests you tick among these ${b.items.length}, exactly as shown here. A request that changes or arrives after this page loaded is not included.`,
          )
        : null,
      h(
        'ol',
        { class: 'batch-list', 'aria-label': 'Requests in this batch' },
        b.items.map((r) => itemCard(s, b, r, index, render)),
      ),
      excludedList(b),
      buttons(s, b, {
        approve: () => void approveAll(),
        tickClean: () => {
          for (const id of cleanIds(b)) s.picked.add(id);
          render();
        },
        untickAll: () => {
          s.picked.clear();
          render();
        },
      }),
    ),
  );
  if (focused) document.getElementById(focused)?.focus();
}

async function load(): Promise<void> {
  try {
    const q = new URLSearchParams(group);
    if (after) q.set('after', after);
    s.batch = await api<Batch>(`/api/v1/batch?${q.toString()}`);
    s.picked.clear();
    // Ticked for the reviewer only what the operator's setting allows and nothing warns about (the server decides).
    for (const r of s.batch.items) if (s.batch.notes[r.id]?.preselected) s.picked.add(r.id);
    render();
  } catch (err) {
    put(
      root,
      h(
        'p',
        { class: 'alert alert-error', role: 'alert' },
        err instanceof ApiError ? err.message : 'The batch could not be loaded.',
      ),
    );
  }
}

/** Ids whose requests the page follows after sending: the approved ones that have not reached their end. */
function followed(): string[] {
  return (s.result?.results ?? [])
    .filter((x) => x.ok && !['ran', 'failed', 'not_run'].includes(s.outcomes.get(x.id)?.stage ?? ''))
    .map((x) => x.id);
}

/** Read where the followed requests stand now. */
async function refreshOutcomes(): Promise<void> {
  const ids = followed();
  if (ids.length === 0) return;
  try {
    const got = await api<{ items: BatchOutcome[] }>(
      `/api/v1/batch/outcomes?ids=${ids.map(encodeURIComponent).join(',')}`,
    );
    for (const o of got.items) s.outcomes.set(o.id, o);
  } catch {
    // The next live event (or a reconnect) reads them again.
    return;
  }
  render();
}
const refreshSoon = debounce(() => void refreshOutcomes(), 150);

async function send(b: Batch): Promise<void> {
  s.busy = true;
  render();
  try {
    s.result = await api<BatchResult>('/api/v1/batch/decision', {
      type: 'approve',
      digest: b.digest,
      // Every item shown travels, in order, so the list still matches what was shown; the unticked ones are marked skip.
      items: b.items.map((r) => ({
        id: r.id,
        expectedVersion: r.version,
        actionHash: r.actionHash,
        ...(s.picked.has(r.id) ? {} : { skip: true }),
      })),
    });
  } catch (err) {
    s.notices.push(err instanceof ApiError ? err.message : 'The batch could not be sent.');
  }
  s.busy = false;
  render();
  document.getElementById('batch-result')?.focus();
  await refreshOutcomes();
}

async function approveAll(): Promise<void> {
  const b = s.batch;
  if (!b || s.busy || s.result) return;
  const chosen = b.items.filter((r) => s.picked.has(r.id));
  if (chosen.length === 0) {
    // `a` with nothing ticked: say so where the reviewer looks, rather than approve nothing silently.
    document.querySelector<HTMLInputElement>('.batch-item input[type="checkbox"]')?.focus();
    return;
  }
  if (await confirmBatch(b, chosen)) await send(b);
}

/** Whether a live event may change what the page shows: a followed request, or its thread. */
function concerns(e: LiveEvent): boolean {
  if (!s.result || !s.batch) return false;
  const ids = new Set(followed());
  if (e.requestId && ids.has(e.requestId)) return true;
  return e.type === 'thread.status' && s.batch.items.some((r) => ids.has(r.id) && r.threadId === e.threadId);
}

function onLive(l: Live): void {
  l.on((e) => {
    if (concerns(e)) return refreshSoon();
    if (!s.batch || s.result || e.type !== 'approval.created') return;
    const same = group.threadId !== undefined ? e.threadId === group.threadId : e.tool === group.tool;
    if (same && !s.batch.items.some((r) => r.id === e.requestId)) {
      s.notices.push(
        'A new request arrived in this group after this list was shown. It is not part of this batch; reload to review it too.',
      );
      render();
    }
  });
  // Events are not replayed after a reconnect: read the outcomes again.
  l.onResync(() => {
    if (s.result && !allSettled(s)) void refreshOutcomes();
  });
}

addShortcuts([{ key: 'a', label: 'Approve the ticked requests (then confirm)', run: () => void approveAll() }]);
startShell();
onLive(live());
void load();
