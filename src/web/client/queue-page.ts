import { ApiError } from './api.ts';
import { byId, debounce, h, put, toast } from './dom.ts';
import { argsLine, hiddenChip, roleChip, short, tierBadge } from './format.ts';
import { addShortcuts } from './keys.ts';
import { live } from './live.ts';
import { pendingRequests, setQueueCount, startShell } from './shell.ts';
import { countdown } from './time.ts';
import { me, type RequestSummary } from './types.ts';

/**
 * The approval queue: pending requests the reviewer may see, soonest expiry
 * first, filtered by role, tool and tier, optionally grouped by thread or
 * tool (each group links to a batch review). New requests arrive live.
 */

type Filters = { role: string; tool: string; tier: string; group: '' | 'thread' | 'tool' };

const list = byId('queue');
const summary = byId('queue-summary');
const form = byId<HTMLFormElement>('filters');
const selects = {
  role: byId<HTMLSelectElement>('filter-role'),
  tool: byId<HTMLSelectElement>('filter-tool'),
  tier: byId<HTMLSelectElement>('filter-tier'),
  group: byId<HTMLSelectElement>('filter-group'),
};
const myself = me();

let items: RequestSummary[] = [];
let more = false;
let known: Set<string> | undefined;
const fresh = new Set<string>();

function readFilters(): Filters {
  const q = new URLSearchParams(window.location.search);
  const group = q.get('group');
  return {
    role: q.get('role') ?? '',
    tool: q.get('tool') ?? '',
    tier: q.get('tier') ?? '',
    group: group === 'thread' || group === 'tool' ? group : '',
  };
}

let filters = readFilters();

/** Options of a filter select: what the data and the reviewer have, keeping the chosen one. */
function fillOptions(select: HTMLSelectElement, values: Iterable<string>, all: string, chosen: string): void {
  const set = [...new Set([...values, ...(chosen ? [chosen] : [])])].sort();
  put(
    select,
    h('option', { value: '' }, all),
    set.map((v) => h('option', { value: v }, v)),
  );
  select.value = chosen;
}

function row(r: RequestSummary): HTMLElement {
  const mine = myself.roles.includes(r.requiredRole);
  return h(
    'li',
    { class: `qitem${fresh.has(r.id) ? ' is-new' : ''}`, 'data-id': r.id, 'data-tool': r.tool },
    h(
      'div',
      { class: 'qmain' },
      h(
        'h2',
        { class: 'qtitle' },
        h('a', { class: 'qlink', href: `/approvals/${encodeURIComponent(r.id)}` }, r.tool),
        ' ',
        tierBadge(r.tier),
        ' ',
        roleChip(r.requiredRole),
        fresh.has(r.id) ? h('span', { class: 'chip chip-new' }, 'new') : null,
        ' ',
        hiddenChip(r.args),
      ),
      h('p', { class: 'qargs mono' }, argsLine(r.args)),
      h('p', { class: 'qreason' }, r.reason),
    ),
    h(
      'div',
      { class: 'qside' },
      h(
        'p',
        { class: 'qleft' },
        h('span', { class: 'sr-only' }, 'Time left: '),
        countdown(h('span', { class: 'countdown' }), r.expiresAt, () => refresh()),
      ),
      h('p', { class: 'qquorum' }, `${r.approvalsReceived}/${r.approvalsRequired} approvals`),
      h(
        'p',
        { class: 'qthread' },
        h(
          'a',
          { href: `/threads/${encodeURIComponent(r.threadId)}`, class: 'thread-link' },
          'thread ',
          short(r.threadId, 14),
        ),
      ),
      mine ? null : h('p', { class: 'muted small' }, 'view only: not your role'),
    ),
  );
}

function groupKey(r: RequestSummary): string {
  return filters.group === 'thread' ? r.threadId : r.tool;
}

function render(): void {
  const shown = items.filter(
    (r) =>
      (!filters.role || r.requiredRole === filters.role) &&
      (!filters.tool || r.tool === filters.tool) &&
      (!filters.tier || r.tier === filters.tier),
  );
  fillOptions(
    selects.role,
    [...myself.roles.filter((x) => x !== 'operator'), ...items.map((r) => r.requiredRole)],
    'All roles',
    filters.role,
  );
  fillOptions(
    selects.tool,
    items.map((r) => r.tool),
    'All tools',
    filters.tool,
  );
  selects.tier.value = filters.tier;
  selects.group.value = filters.group;

  setQueueCount(items.length, more);
  const head = document.getElementById('queue-count-head');
  if (head) head.textContent = more ? `${items.length}+` : String(items.length);
  const soon = shown.filter((r) => Date.parse(r.expiresAt) - Date.now() < 5 * 60_000).length;
  const filtered =
    shown.length !== items.length ? ` (${items.length} in all; filters hide ${items.length - shown.length})` : '';
  summary.textContent = `${shown.length} pending${filtered}${soon ? ` · ${soon} expiring within 5 minutes` : ''} · soonest expiry first.`;

  if (shown.length === 0) {
    put(
      list,
      h(
        'div',
        { class: 'empty' },
        h('p', null, items.length ? 'No pending request matches these filters.' : 'Nothing is waiting for you.'),
        h('p', { class: 'muted' }, 'New requests appear here as soon as an agent pauses.'),
      ),
    );
    return;
  }
  if (!filters.group) {
    put(list, h('ol', { class: 'qlist', 'aria-label': 'Pending requests' }, shown.map(row)));
    return;
  }
  const groups = new Map<string, RequestSummary[]>();
  for (const r of shown) groups.set(groupKey(r), [...(groups.get(groupKey(r)) ?? []), r]);
  put(
    list,
    [...groups.entries()].map(([key, rs]) => {
      const label = filters.group === 'thread' ? 'Thread' : 'Tool';
      const batchHref = `/batch?${new URLSearchParams(filters.group === 'thread' ? { threadId: key } : { tool: key }).toString()}`;
      return h(
        'section',
        { class: 'qgroup', 'aria-label': `${label} ${key}` },
        h(
          'header',
          { class: 'qgroup-head' },
          h(
            'h2',
            null,
            `${label} `,
            filters.group === 'thread' ? short(key, 18) : h('code', null, key),
            h('span', { class: 'muted' }, ` · ${rs.length} pending`),
          ),
          rs.length > 1 ? h('a', { class: 'btn btn-small', href: batchHref }, `Review ${rs.length} together`) : null,
        ),
        h('ol', { class: 'qlist' }, rs.map(row)),
      );
    }),
  );
}

let loading = false;
let again = false;

async function load(): Promise<void> {
  if (loading) {
    again = true;
    return;
  }
  loading = true;
  try {
    const r = await pendingRequests();
    if (known) {
      for (const x of r.items) {
        if (!known.has(x.id)) {
          fresh.add(x.id);
          toast(`New request: ${x.tool} (${x.requiredRole})`);
          window.setTimeout(() => {
            fresh.delete(x.id);
            document.querySelector(`[data-id="${CSS.escape(x.id)}"]`)?.classList.remove('is-new');
          }, 8000);
        }
      }
    }
    known = new Set(r.items.map((x) => x.id));
    items = r.items;
    more = r.more;
    render();
  } catch (err) {
    put(
      list,
      h(
        'p',
        { class: 'alert alert-error', role: 'alert' },
        err instanceof ApiError ? err.message : 'The queue could not be loaded.',
      ),
    );
  } finally {
    loading = false;
    if (again) {
      again = false;
      void load();
    }
  }
}

const refresh = debounce(() => void load(), 150);

form.addEventListener('change', () => {
  filters = {
    role: selects.role.value,
    tool: selects.tool.value,
    tier: selects.tier.value,
    group: (selects.group.value as Filters['group']) || '',
  };
  const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ''));
  window.history.replaceState(null, '', q.size ? `/?${q.toString()}` : '/');
  render();
});
form.addEventListener('submit', (e) => e.preventDefault());

function move(delta: number): void {
  const links = [...list.querySelectorAll<HTMLAnchorElement>('a.qlink')];
  if (links.length === 0) return;
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  const next =
    links[Math.max(0, Math.min(links.length - 1, at < 0 ? (delta > 0 ? 0 : links.length - 1) : at + delta))]!;
  next.focus();
  next.closest('li')?.scrollIntoView({ block: 'nearest' });
}

addShortcuts([
  { key: 'j', label: 'Next request', run: () => move(1) },
  { key: 'k', label: 'Previous request', run: () => move(-1) },
  { key: '/', label: 'Filter by role', run: () => selects.role.focus() },
]);
startShell({ countsItself: true });
const l = live();
l.on((e) => {
  if (e.type.startsWith('approval.')) refresh();
});
l.onResync(refresh);
void load();
