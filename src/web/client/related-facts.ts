import { api } from './api.ts';
import { h } from './dom.ts';
import { argsLine, show, statusPill } from './format.ts';
import { ago, when } from './time.ts';
import type { Json } from './types.ts';

/**
 * The card's panel of what a reviewer weighs beside the action: the facts about the call as of now
 * (read again when the card opens, dated, with what changed since the request opened) and the other
 * requests on the same subject (order, customer) with their sums. Before a decision the card asks
 * {@link RelatedFacts.changedSinceLoad}: facts that moved since the reviewer read them are said
 * before the decision is confirmed.
 */

interface FactsView {
  asOf: string;
  refreshed: boolean;
  facts: Record<string, Json>;
  atOpen: Record<string, Json>;
  changed: string[];
  error?: string;
}

interface SubjectView {
  key: string;
  value: string | number;
  open: { count: number; amount: number | null };
  executed: { count: number; amount: number | null };
  requests: Array<{ id: string; tool: string; status: string; args: Record<string, Json>; createdAt: string }>;
  hidden: number;
}

/** The panel's handle for the card's decision flow. */
export interface RelatedFacts {
  /** Read the facts again: a sentence naming what changed since the card loaded them, or null. */
  changedSinceLoad(): Promise<string | null>;
}

const money = (n: number | null) => (n === null ? '' : ` — ${n.toLocaleString('en-US')} in all`);

function factsPart(f: FactsView): HTMLElement {
  const rows = Object.entries(f.facts).map(([k, v]) =>
    h(
      'tr',
      { class: f.changed.includes(k) ? 'fact changed' : 'fact' },
      h('th', { scope: 'row' }, k),
      h('td', {}, show(v)),
      h('td', {}, f.changed.includes(k) ? `was ${show(f.atOpen[k])} when the request opened` : ''),
    ),
  );
  const dated = f.refreshed
    ? `as of ${when(f.asOf)} (read again now)`
    : `as of ${when(f.asOf)}, when the request opened`;
  return h(
    'section',
    { class: 'current-facts', 'aria-label': 'Current facts' },
    h('h3', {}, 'Facts ', h('span', { class: 'as-of' }, dated)),
    f.error ? h('p', { class: 'warn', role: 'status' }, `Could not read the facts again: ${f.error}`) : null,
    rows.length ? h('table', {}, h('tbody', {}, rows)) : h('p', { class: 'muted' }, 'No facts recorded.'),
  );
}

function subjectPart(s: SubjectView): HTMLElement {
  const items = s.requests.map((r) =>
    h(
      'li',
      {},
      h('a', { href: `/approvals/${encodeURIComponent(r.id)}` }, r.tool),
      ' ',
      statusPill(r.status),
      ' ',
      argsLine(r.args, 80),
      h('span', { class: 'muted' }, ` · ${ago(r.createdAt)}`),
    ),
  );
  return h(
    'section',
    { class: 'subject', 'data-subject': s.key },
    h(
      'h3',
      {},
      `${s.key} ${String(s.value)}: `,
      `${s.open.count} other open${money(s.open.amount)}; `,
      `${s.executed.count} ran${money(s.executed.amount)}`,
    ),
    items.length ? h('ul', {}, items) : null,
    s.hidden ? h('p', { class: 'muted' }, `${s.hidden} more for roles you do not have.`) : null,
  );
}

/** Fill `container` for request `id` and return the handle the decision flow asks. */
export async function mountRelatedFacts(container: HTMLElement, id: string): Promise<RelatedFacts> {
  const path = `/api/v1/approvals/${encodeURIComponent(id)}`;
  const [facts, related] = await Promise.all([
    api<FactsView>(`${path}/facts`),
    api<{ subjects: SubjectView[] }>(`${path}/related`),
  ]);
  container.replaceChildren(
    factsPart(facts),
    ...related.subjects.filter((s) => s.requests.length || s.hidden || s.executed.count).map(subjectPart),
  );
  const loaded = facts.facts;
  return {
    async changedSinceLoad() {
      if (!facts.refreshed) return null;
      const now = await api<FactsView>(`${path}/facts`);
      const moved = Object.keys(now.facts).filter((k) => JSON.stringify(now.facts[k]) !== JSON.stringify(loaded[k]));
      if (moved.length === 0) return null;
      container.replaceChildren(factsPart(now), ...[...container.children].slice(1));
      return `Since you opened this card: ${moved.map((k) => `${k} ${show(loaded[k])} → ${show(now.facts[k])}`).join('; ')}.`;
    },
  };
}

/**
 * The panel in `container`, filled in the background (a failure says so in it): `moved()` reads the
 * facts again before a decision — what changed since the card loaded them, or null.
 */
export function relatedFactsPanel(container: HTMLElement, id: string): { moved(): Promise<string | null> } {
  const mounted = mountRelatedFacts(container, id).catch(() => {
    container.replaceChildren(h('p', { class: 'muted' }, 'Related requests and current facts could not be read.'));
    return undefined;
  });
  return {
    async moved() {
      try {
        return (await (await mounted)?.changedSinceLoad()) ?? null;
      } catch {
        return 'The facts could not be read again.';
      }
    },
  };
}
