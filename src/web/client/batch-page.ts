import { api, ApiError } from './api.ts';
import { confirmStep } from './confirm.ts';
import { byId, h, put, type Child } from './dom.ts';
import { exactJson, hiddenChip, roleChip, short, tierBadge } from './format.ts';
import { addShortcuts } from './keys.ts';
import { live } from './live.ts';
import { refusalReason } from './refusals.ts';
import { startShell } from './shell.ts';
import { countdown } from './time.ts';
import type { RequestSummary } from './types.ts';

/**
 * Batch review: the pending requests of one thread or one tool that you can
 * approve, approved together. The approval binds to exactly the list shown
 * (the server checks the list against the fingerprint it gave it), and only
 * the requests ticked are approved. Escalate-tier requests start unticked:
 * approving one is a deliberate choice. Two items that are the same action
 * (same tool, same arguments) are pointed out, since approving both runs it
 * twice. After sending, each item says what happened to it.
 */

interface Batch {
  group: { by: 'thread'; threadId: string } | { by: 'tool'; tool: string };
  items: RequestSummary[];
  digest: string;
  excluded: Array<{ id: string; tool: string; reason: string }>;
}
type ItemResult =
  | { id: string; ok: true; outcome: string; status: string; approvalsReceived: number; approvalsRequired: number }
  | { id: string; ok: false; error: { code: string; message: string; status: number } };
interface BatchResult {
  digest: string;
  skipped: string[];
  results: ItemResult[];
}

const root = byId('batch');
const query = new URLSearchParams(window.location.search);
const group: Record<string, string> = query.get('threadId')
  ? { threadId: query.get('threadId')! }
  : { tool: query.get('tool') ?? '' };
let batch: Batch | undefined;
let result: BatchResult | undefined;
let busy = false;
const notices: string[] = [];
/** Ids ticked for approval. */
const picked = new Set<string>();

function title(b: Batch): HTMLElement {
  return h(
    'h1',
    null,
    'Batch review: ',
    b.group.by === 'thread' ? ['thread ', short(b.group.threadId, 22)] : ['tool ', h('code', null, b.group.tool)],
  );
}

/** Items that are the same action as an earlier one (same tool and arguments: the same action hash), by item number. */
function sameActions(items: readonly RequestSummary[]): Array<{ tool: string; numbers: number[] }> {
  const byHash = new Map<string, { tool: string; numbers: number[] }>();
  items.forEach((r, i) => {
    const key = `${r.tool}\n${r.actionHash}`;
    const g = byHash.get(key) ?? { tool: r.tool, numbers: [] };
    g.numbers.push(i + 1);
    byHash.set(key, g);
  });
  return [...byHash.values()].filter((g) => g.numbers.length > 1);
}

/** What happened to one item, in words: "approved", "counted 1/2 toward quorum", "refused: …", "not ticked: still pending". */
function outcomeText(r: RequestSummary): { ok: boolean; text: string } | undefined {
  if (!result) return undefined;
  if (result.skipped.includes(r.id)) return { ok: true, text: 'not ticked: left pending for a decision of its own' };
  const res = result.results.find((x) => x.id === r.id);
  if (!res) return undefined;
  if (!res.ok)
    return {
      ok: false,
      text: `refused: ${refusalReason(new ApiError(res.error.status, res.error.code, res.error.message), r)}`,
    };
  if (res.outcome === 'pending')
    return {
      ok: true,
      text: `counted ${res.approvalsReceived}/${res.approvalsRequired} toward quorum (it runs once ${res.approvalsRequired} reviewers approve)`,
    };
  return { ok: true, text: 'approved' };
}

function summary(r: BatchResult): string {
  const approved = r.results.filter((x) => x.ok && x.outcome !== 'pending').length;
  const counted = r.results.filter((x) => x.ok && x.outcome === 'pending').length;
  const refused = r.results.filter((x) => !x.ok).length;
  const parts = [
    `${approved} approved`,
    counted ? `${counted} counted toward a quorum (not yet approved)` : '',
    refused ? `${refused} refused (see each item)` : '',
    r.skipped.length ? `${r.skipped.length} not ticked, still pending` : '',
  ].filter(Boolean);
  return `${parts.join(', ')}.`;
}

function itemCard(r: RequestSummary, i: number, twins: Map<string, number[]>): HTMLElement {
  const out = outcomeText(r);
  const escalate = r.tier === 'escalate';
  const id = `pick-${i + 1}`;
  const box = h('input', {
    type: 'checkbox',
    id,
    checked: picked.has(r.id),
    disabled: busy || result !== undefined,
    'data-id': r.id,
  });
  box.addEventListener('change', () => {
    if (box.checked) picked.add(r.id);
    else picked.delete(r.id);
    render();
  });
  const twin = twins.get(r.id);
  return h(
    'li',
    {
      class: `batch-item${out ? (out.ok ? ' is-ok' : ' is-failed') : ''}${escalate ? ' is-escalate' : ''}`,
      'data-id': r.id,
      'data-tier': r.tier,
    },
    h(
      'p',
      { class: 'qtitle' },
      h('span', { class: 'item-no' }, `${i + 1}.`),
      ' ',
      h('code', { class: 'tool-name' }, r.tool),
      ' ',
      tierBadge(r.tier),
      ' ',
      roleChip(r.requiredRole),
      ' ',
      h('span', { class: 'chip' }, 'v', String(r.version)),
      ' ',
      h('a', { href: `/approvals/${encodeURIComponent(r.id)}` }, 'full card'),
      ' ',
      hiddenChip(r.args),
    ),
    h('pre', { class: 'mono' }, exactJson(r.args)),
    h(
      'p',
      { class: 'muted' },
      r.reason,
      out ? null : [' · expires in ', countdown(h('span', { class: 'countdown' }), r.expiresAt)],
      ' · thread ',
      short(r.threadId, 14),
    ),
    twin
      ? h(
          'p',
          { class: 'same-action', role: 'note' },
          `⚠ The same action as item ${twin.join(' and ')}: approving both runs it more than once.`,
        )
      : null,
    out
      ? h('p', { class: out.ok ? 'result-ok' : 'result-failed', role: 'status' }, `${out.ok ? '✔' : '✖'} ${out.text}`)
      : h(
          'div',
          { class: 'check pick' },
          box,
          h(
            'label',
            { for: id },
            escalate
              ? `Approve this escalate-tier request too (it needs ${r.approvalsRequired} ${r.requiredRole} approval${r.approvalsRequired === 1 ? '' : 's'}; not ticked unless you choose it)`
              : 'Approve this one',
          ),
        ),
  );
}

/** Notices, the outcome once sent, and a warning about items that are the same action. */
function alerts(dupes: ReadonlyArray<{ tool: string; numbers: number[] }>): Child[] {
  return [
    notices.map((t) =>
      h(
        'div',
        { class: 'alert alert-warn', role: 'alert' },
        h('p', null, t),
        h('p', null, h('a', { class: 'btn btn-small', href: window.location.href }, 'Reload the batch')),
      ),
    ),
    result
      ? h(
          'div',
          {
            class: `alert ${result.results.some((x) => !x.ok) ? 'alert-warn' : 'alert-ok'}`,
            role: 'status',
            id: 'batch-result',
            tabindex: '-1',
          },
          h('p', null, summary(result)),
          h('p', null, h('a', { class: 'btn btn-small', href: '/' }, 'Back to the queue')),
        )
      : null,
    dupes.length && !result
      ? h(
          'div',
          { class: 'alert alert-warn', role: 'alert', id: 'same-actions' },
          dupes.map((g) =>
            h(
              'p',
              null,
              `Items ${g.numbers.join(' and ')} are the same action (`,
              h('code', null, g.tool),
              ' with the same arguments). Approving all of them runs it more than once — untick the extra ones unless that is what you want.',
            ),
          ),
        )
      : null,
  ];
}

/** The requests of the group left out, each with why. */
function excludedList(b: Batch): HTMLElement | null {
  return b.excluded.length
    ? h(
        'details',
        { class: 'excluded' },
        h('summary', null, `${b.excluded.length} not included`),
        h(
          'ul',
          null,
          b.excluded.map((x) =>
            h('li', null, h('a', { href: `/approvals/${encodeURIComponent(x.id)}` }, x.tool), ` — ${x.reason}`),
          ),
        ),
      )
    : null;
}

/** The one button that sends the ticked items, before anything was sent. */
function approveButton(n: number, k: number): HTMLElement | null {
  return n > 0 && !result
    ? h(
        'div',
        { class: 'decide-buttons' },
        h(
          'button',
          {
            type: 'button',
            class: 'btn btn-primary',
            id: 'approve-all',
            disabled: busy || k === 0,
            'aria-keyshortcuts': 'a',
            onClick: () => void approveAll(),
          },
          k === n ? `Approve all ${n} ` : `Approve ${k} of ${n} `,
          h('kbd', { 'aria-hidden': 'true' }, 'A'),
        ),
      )
    : null;
}

/** Item ids and the numbers of the other items that are the same action. */
function twinsOf(items: readonly RequestSummary[], dupes: ReadonlyArray<{ numbers: number[] }>): Map<string, number[]> {
  const twins = new Map<string, number[]>();
  for (const g of dupes)
    for (const no of g.numbers)
      twins.set(
        items[no - 1]!.id,
        g.numbers.filter((x) => x !== no),
      );
  return twins;
}

function render(): void {
  const b = batch;
  if (!b) return;
  const n = b.items.length;
  const k = b.items.filter((r) => picked.has(r.id)).length;
  const dupes = sameActions(b.items);
  const twins = twinsOf(b.items, dupes);
  put(
    root,
    h(
      'article',
      { class: 'card' },
      h('header', { class: 'page-head' }, title(b)),
      alerts(dupes),
      n === 0
        ? h('p', { class: 'muted' }, 'Nothing in this group is waiting for your approval.')
        : h(
            'p',
            { class: 'digest-line' },
            `Approving covers only the requests you tick among these ${n}, exactly as shown here. A request that changes or arrives after this page loaded is not included.`,
          ),
      h(
        'ol',
        { class: 'batch-list', 'aria-label': 'Requests in this batch' },
        b.items.map((r, i) => itemCard(r, i, twins)),
      ),
      excludedList(b),
      approveButton(n, k),
    ),
  );
}

async function load(): Promise<void> {
  try {
    batch = await api<Batch>(`/api/v1/batch?${new URLSearchParams(group).toString()}`);
    picked.clear();
    // Escalate-tier requests are the ones the policy marked as most serious: they are approved only when ticked on purpose.
    for (const r of batch.items) if (r.tier !== 'escalate') picked.add(r.id);
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

async function approveAll(): Promise<void> {
  const b = batch;
  const chosen = b?.items.filter((r) => picked.has(r.id)) ?? [];
  if (!b || busy || result || chosen.length === 0) return;
  const left = b.items.length - chosen.length;
  const ok = await confirmStep({
    title: `Approve ${chosen.length === 1 ? 'this request' : `these ${chosen.length} requests`}?`,
    body: [
      h(
        'ul',
        { class: 'confirm-list' },
        chosen.map((r) =>
          h(
            'li',
            null,
            h('code', null, r.tool),
            ' ',
            r.tier === 'escalate' ? [tierBadge(r.tier), ' '] : null,
            h('span', { class: 'mono' }, JSON.stringify(r.args)),
          ),
        ),
      ),
      left
        ? h('p', { class: 'muted small' }, `${left} not ticked: ${left === 1 ? 'it stays' : 'they stay'} pending.`)
        : null,
    ],
    confirm: `Approve ${chosen.length}`,
  });
  if (!ok) return;
  busy = true;
  render();
  try {
    result = await api<BatchResult>('/api/v1/batch/decision', {
      type: 'approve',
      digest: b.digest,
      // Every item shown travels, in order, so the list still matches what was shown; the unticked ones are marked skip.
      items: b.items.map((r) => ({
        id: r.id,
        expectedVersion: r.version,
        actionHash: r.actionHash,
        ...(picked.has(r.id) ? {} : { skip: true }),
      })),
    });
  } catch (err) {
    notices.push(err instanceof ApiError ? err.message : 'The batch could not be sent.');
  }
  busy = false;
  render();
  document.getElementById('batch-result')?.focus();
}

addShortcuts([{ key: 'a', label: 'Approve the ticked requests (then confirm)', run: () => void approveAll() }]);
startShell();
live().on((e) => {
  if (!batch || result || e.type !== 'approval.created') return;
  const same = group.threadId !== undefined ? e.threadId === group.threadId : e.tool === group.tool;
  if (same && !batch.items.some((r) => r.id === e.requestId)) {
    notices.push(
      'A new request arrived in this group after this list was shown. It is not part of this batch; reload to review it too.',
    );
    render();
  }
});
void load();
