import { api, ApiError } from './api.ts';
import { confirmStep } from './confirm.ts';
import { byId, h, put } from './dom.ts';
import { exactJson, hiddenChip, roleChip, short, tierBadge } from './format.ts';
import { addShortcuts } from './keys.ts';
import { live } from './live.ts';
import { startShell } from './shell.ts';
import { countdown } from './time.ts';
import type { RequestSummary } from './types.ts';

/**
 * Batch review: the pending requests of one thread or one tool that you can
 * approve, approved together. The approval binds to exactly the list shown:
 * the server gave it a digest, and approves only a list with that digest. A
 * request that arrives later is not covered.
 */

interface Batch {
  group: { by: 'thread'; threadId: string } | { by: 'tool'; tool: string };
  items: RequestSummary[];
  digest: string;
  excluded: Array<{ id: string; tool: string; reason: string }>;
}
interface BatchResult {
  digest: string;
  approved: number;
  failed: number;
  results: Array<{ id: string; ok: true; outcome: string; status: string } | { id: string; ok: false; error: { code: string; message: string; status: number } }>;
}

const root = byId('batch');
const query = new URLSearchParams(window.location.search);
const group: Record<string, string> = query.get('threadId') ? { threadId: query.get('threadId')! } : { tool: query.get('tool') ?? '' };
let batch: Batch | undefined;
let result: BatchResult | undefined;
let busy = false;
const notices: string[] = [];

function title(b: Batch): HTMLElement {
  return h('h1', null, 'Batch review: ', b.group.by === 'thread' ? ['thread ', short(b.group.threadId, 22)] : ['tool ', h('code', null, b.group.tool)]);
}

function itemCard(r: RequestSummary): HTMLElement {
  const res = result?.results.find((x) => x.id === r.id);
  return h(
    'li',
    { class: `batch-item${res ? (res.ok ? ' is-ok' : ' is-failed') : ''}`, 'data-id': r.id },
    h('p', { class: 'qtitle' }, h('code', { class: 'tool-name' }, r.tool), ' ', tierBadge(r.tier), ' ', roleChip(r.requiredRole), ' ', h('span', { class: 'chip' }, 'v', String(r.version)), ' ', h('a', { href: `/approvals/${encodeURIComponent(r.id)}` }, 'full card'), ' ', hiddenChip(r.args)),
    h('pre', { class: 'mono' }, exactJson(r.args)),
    h('p', { class: 'muted' }, r.reason, res?.ok ? null : [' · expires in ', countdown(h('span', { class: 'countdown' }), r.expiresAt)], ' · thread ', short(r.threadId, 14)),
    res ? h('p', { class: res.ok ? 'result-ok' : 'result-failed', role: 'status' }, res.ok ? `✔ ${res.outcome === 'pending' ? 'approval counted (quorum not yet reached)' : 'approved'}` : `✖ not approved: ${res.error.message}`) : null,
  );
}

function render(): void {
  const b = batch;
  if (!b) return;
  const n = b.items.length;
  put(
    root,
    h(
      'article',
      { class: 'card' },
      h('header', { class: 'page-head' }, title(b)),
      notices.map((t) => h('div', { class: 'alert alert-warn', role: 'alert' }, h('p', null, t), h('p', null, h('a', { class: 'btn btn-small', href: window.location.href }, 'Reload the batch')))),
      result
        ? h('div', { class: `alert ${result.failed ? 'alert-warn' : 'alert-ok'}`, role: 'status', id: 'batch-result', tabindex: '-1' }, h('p', null, `${result.approved} approved${result.failed ? `, ${result.failed} not approved (see each item)` : ''}.`), h('p', null, h('a', { class: 'btn btn-small', href: '/' }, 'Back to the queue')))
        : null,
      n === 0
        ? h('p', { class: 'muted' }, 'Nothing in this group is waiting for your approval.')
        : h(
            'p',
            { class: 'digest-line' },
            `Approving covers exactly these ${n} request${n === 1 ? '' : 's'}, at the versions shown (list digest `,
            short(b.digest, 12),
            '). A request that arrives later is not included.',
          ),
      h('ol', { class: 'batch-list', 'aria-label': 'Requests in this batch' }, b.items.map(itemCard)),
      b.excluded.length ? h('details', { class: 'excluded' }, h('summary', null, `${b.excluded.length} not included`), h('ul', null, b.excluded.map((x) => h('li', null, h('a', { href: `/approvals/${encodeURIComponent(x.id)}` }, x.tool), ` — ${x.reason}`)))) : null,
      n > 0 && !result ? h('div', { class: 'decide-buttons' }, h('button', { type: 'button', class: 'btn btn-primary', id: 'approve-all', disabled: busy, 'aria-keyshortcuts': 'a', onClick: () => void approveAll() }, `Approve all ${n} `, h('kbd', { 'aria-hidden': 'true' }, 'A'))) : null,
    ),
  );
}

async function load(): Promise<void> {
  try {
    batch = await api<Batch>(`/api/v1/batch?${new URLSearchParams(group).toString()}`);
    render();
  } catch (err) {
    put(root, h('p', { class: 'alert alert-error', role: 'alert' }, err instanceof ApiError ? err.message : 'The batch could not be loaded.'));
  }
}

async function approveAll(): Promise<void> {
  const b = batch;
  if (!b || busy || result || b.items.length === 0) return;
  const ok = await confirmStep({
    title: `Approve these ${b.items.length} requests?`,
    body: [h('ul', { class: 'confirm-list' }, b.items.map((r) => h('li', null, h('code', null, r.tool), ' ', h('span', { class: 'mono' }, JSON.stringify(r.args))))), h('p', { class: 'muted small' }, 'List digest ', short(b.digest, 12))],
    confirm: `Approve ${b.items.length}`,
  });
  if (!ok) return;
  busy = true;
  render();
  try {
    result = await api<BatchResult>('/api/v1/batch/decision', { type: 'approve', digest: b.digest, items: b.items.map((r) => ({ id: r.id, expectedVersion: r.version, actionHash: r.actionHash })) });
  } catch (err) {
    notices.push(err instanceof ApiError ? err.message : 'The batch could not be sent.');
  }
  busy = false;
  render();
  document.getElementById('batch-result')?.focus();
}

addShortcuts([{ key: 'a', label: 'Approve the whole batch (then confirm)', run: () => void approveAll() }]);
startShell();
live().on((e) => {
  if (!batch || result || e.type !== 'approval.created') return;
  const same = group.threadId !== undefined ? e.threadId === group.threadId : e.tool === group.tool;
  if (same && !batch.items.some((r) => r.id === e.requestId)) {
    notices.push('A new request arrived in this group after this list was shown. It is not part of this batch; reload to review it too.');
    render();
  }
});
void load();
