import { api, ApiError } from './api.ts';
import { rateBars, setChartWidth, stackedBars, timeLine } from './charts.ts';
import { byId, debounce, h, put } from './dom.ts';
import { live } from './live.ts';
import { startShell } from './shell.ts';
import type { DashboardData } from '../dashboard-types.ts';

/** The metrics page: charts of GET /api/v1/dashboard, refreshed as decisions happen. */

/** The API's answer, declared once in web/dashboard-types.ts. */
type Dashboard = DashboardData;

const root = byId('dashboard');
const select = byId<HTMLSelectElement>('window');
select.value = new URLSearchParams(window.location.search).get('window') ?? '24h';

function kpi(label: string, value: string, id: string): HTMLElement {
  return h('div', { class: 'kpi', id }, h('p', { class: 'kpi-value' }, value), h('p', { class: 'kpi-label' }, label));
}

const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)}%`);

function minutes(m: number | null): string {
  if (m === null) return '—';
  if (m < 1) return `${Math.round(m * 60)} s`;
  if (m < 120) return `${m.toFixed(m < 10 ? 1 : 0)} min`;
  return `${(m / 60).toFixed(1)} h`;
}

/** Opened and resolved over the whole window, per role. */
function queueByRole(d: Dashboard): Array<{ role: string; opened: number; resolved: number }> {
  const by = new Map<string, { role: string; opened: number; resolved: number }>();
  for (const f of d.rollup.queue.flows) {
    const x = by.get(f.role) ?? { role: f.role, opened: 0, resolved: 0 };
    x.opened += f.opened;
    x.resolved += f.resolved;
    by.set(f.role, x);
  }
  return [...by.values()];
}

type Oversight = NonNullable<Dashboard['rollup']['oversight']>;

/** Operators only: how planted checks fared, and each reviewer's pace. A signal, not a verdict. */
function oversight(o: Oversight, names: Record<string, string>): HTMLElement {
  const p = o.planted;
  return h(
    'section',
    { class: 'oversight', id: 'oversight', 'aria-labelledby': 'h-oversight' },
    h('h2', { id: 'h-oversight' }, 'Review quality (operators only)'),
    h(
      'p',
      { class: 'muted', id: 'planted-summary' },
      p.placed
        ? `Planted checks: ${p.placed} placed, ${p.decided} decided, ${p.caught} caught — yield ${pct(p.yield)}. Median time to decision: planted ${minutes(p.medianMinutesToDecision.planted)}, real ${minutes(p.medianMinutesToDecision.real)}.`
        : 'No planted checks in this window (they are off unless a policy rule sets "plant").',
    ),
    h(
      'div',
      { class: 'charts' },
      stackedBars(
        'Planted checks by reviewer',
        p.byReviewer.map((y) => ({
          label: names[y.key] ?? y.key,
          segments: [
            { name: 'caught', value: y.caught, cls: 'seg-approved' },
            { name: 'missed', value: y.missed, cls: 'seg-rejected' },
          ],
        })),
      ),
    ),
    h('h3', null, 'Reviewer pace'),
    h(
      'p',
      { class: 'muted small' },
      'Seconds from opening a card to approving it. A signal to look into, not a verdict: a reviewer may have read the case elsewhere first.',
    ),
    o.reviewers.length
      ? h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'pace', id: 'reviewer-pace' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Reviewer', 'Approvals', 'Timed', 'Median s', `Under ${o.reviewers[0]!.fastSeconds} s`].map((x) =>
                  h('th', null, x),
                ),
              ),
            ),
            h(
              'tbody',
              null,
              o.reviewers.map((x) =>
                h(
                  'tr',
                  { 'data-reviewer': x.reviewer },
                  h('td', null, names[x.reviewer] ?? x.reviewer),
                  h('td', null, String(x.approvals)),
                  h('td', null, String(x.timed)),
                  h('td', null, x.medianSecondsToApprove === null ? '—' : x.medianSecondsToApprove.toFixed(1)),
                  h('td', null, pct(x.fastShare)),
                ),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No approvals in this window.'),
  );
}

/** The headline figures of the window. */
function kpis(d: Dashboard): HTMLElement {
  const tools = d.rollup.tools;
  const total = tools.reduce((a, t) => a + t.requests, 0);
  const decided = tools.reduce((a, t) => a + t.approved + t.edited + t.rejected + t.responded, 0);
  const approvedOrEdited = tools.reduce((a, t) => a + t.approved + t.edited, 0);
  const edited = tools.reduce((a, t) => a + t.edited, 0);
  return h(
    'div',
    { class: 'kpis' },
    kpi('interrupts', String(total), 'kpi-interrupts'),
    kpi('pending now', String(d.pendingNow), 'kpi-pending'),
    kpi('approval rate', pct(decided ? approvedOrEdited / decided : null), 'kpi-approval'),
    kpi('correction rate', pct(decided ? edited / decided : null), 'kpi-correction'),
    kpi('resume success', pct(d.rollup.resume.successRate), 'kpi-resume'),
    kpi('autonomous completion', pct(d.rollup.threads.autonomousRate), 'kpi-autonomous'),
  );
}

/** Per tool: what became of its interrupts, how often they were approved or corrected, how often calls paused. */
function toolCharts(tools: Dashboard['rollup']['tools']): Element[] {
  return [
    stackedBars(
      'Interrupts per tool, by outcome',
      tools.map((t) => ({
        label: t.tool,
        segments: [
          { name: 'approved', value: t.approved, cls: 'seg-approved' },
          { name: 'edited', value: t.edited, cls: 'seg-edited' },
          { name: 'rejected', value: t.rejected, cls: 'seg-rejected' },
          { name: 'responded', value: t.responded, cls: 'seg-responded' },
          { name: 'expired', value: t.expired, cls: 'seg-expired' },
          { name: 'pending', value: t.pending, cls: 'seg-pending' },
        ],
      })),
    ),
    rateBars(
      'Approval and correction rates',
      tools.map((t) => ({
        label: t.tool,
        rates: [
          { name: 'approved (incl. edited)', value: t.approvalRate, cls: 'seg-approved' },
          { name: 'corrected (edited)', value: t.correctionRate, cls: 'seg-edited' },
        ],
      })),
    ),
    rateBars(
      'Interrupt rate per tool (calls that paused)',
      tools.map((t) => ({
        label: t.tool,
        rates: [{ name: 'paused', value: t.interruptRate, cls: 'seg-pending' }],
      })),
    ),
  ];
}

/** The charts: per tool, per tier, the queue by role, time to decision, per agent and queue depth. */
function charts(d: Dashboard): HTMLElement {
  const tools = d.rollup.tools;
  return h(
    'div',
    { class: 'charts' },
    toolCharts(tools),
    rateBars(
      'Per risk tier',
      d.rollup.tiers.map((t) => ({
        label: `${t.tier} (${t.calls} calls)`,
        rates: [
          { name: 'paused', value: t.interruptRate, cls: 'seg-pending' },
          { name: 'approved (incl. edited)', value: t.approvalRate, cls: 'seg-approved' },
          { name: 'corrected (edited)', value: t.correctionRate, cls: 'seg-edited' },
        ],
      })),
    ),
    stackedBars(
      'Queue: opened and resolved, by role',
      queueByRole(d).flatMap((q) => [
        { label: `${q.role} opened`, segments: [{ name: 'opened', value: q.opened, cls: 'seg-pending' }] },
        { label: `${q.role} resolved`, segments: [{ name: 'resolved', value: q.resolved, cls: 'seg-approved' }] },
      ]),
    ),
    stackedBars(
      'Median time to decision',
      tools
        .filter((t) => t.medianMinutesToDecision !== null)
        .map((t) => ({
          label: t.tool,
          segments: [{ name: 'minutes', value: Math.round(t.medianMinutesToDecision! * 10) / 10, cls: 'seg-time' }],
        })),
      (m) => minutes(m),
    ),
    // Shown once some request came from a tree of agents (or several agents share the service).
    d.rollup.agents.length > 1 || d.rollup.agents.some((a) => a.agent.includes('/'))
      ? stackedBars(
          'Interrupts per agent',
          d.rollup.agents.map((a) => ({
            // A request an edit proposed has the editing reviewer as its proposer: say so, by name.
            label: d.names[a.agent] ? `${d.names[a.agent]} (a reviewer's edit)` : a.agent,
            segments: [
              { name: 'decided', value: a.requests - a.pending, cls: 'seg-approved' },
              { name: 'pending', value: a.pending, cls: 'seg-pending' },
            ],
          })),
        )
      : null,
    timeLine(
      'Queue depth over time',
      d.queueDepth.map((p) => ({ at: p.at, value: p.depth })),
      'pending requests',
    ),
  );
}

let shown: Dashboard | undefined;

/**
 * Draw the charts at the width their boxes take, so their labels keep their size on a phone: after a
 * render (and when the page's width changes) measure a chart box, and draw again if it differs.
 */
function fit(): void {
  const box = root.querySelector<HTMLElement>('.chart-box');
  if (!box || !shown) return;
  const cs = getComputedStyle(box);
  if (setChartWidth(box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight))) render(shown);
}

function render(d: Dashboard): void {
  shown = d;
  put(
    root,
    kpis(d),
    charts(d),
    d.rollup.oversight ? oversight(d.rollup.oversight, d.names) : null,
    h(
      'p',
      { class: 'muted small' },
      `Requests created ${new Date(d.since).toLocaleString()} – ${new Date(d.until).toLocaleString()}.${d.truncated ? ' Queue depth drawn from the most recent 20,000 requests.' : ''} Prometheus metrics: `,
      h('a', { href: '/metrics' }, '/metrics'),
      '.',
    ),
  );
  fit();
}

async function load(): Promise<void> {
  try {
    render(await api<Dashboard>(`/api/v1/dashboard?window=${encodeURIComponent(select.value)}`));
  } catch (err) {
    put(
      root,
      h(
        'p',
        { class: 'alert alert-error', role: 'alert' },
        err instanceof ApiError ? err.message : 'The metrics could not be loaded.',
      ),
    );
  }
}

select.addEventListener('change', () => {
  window.history.replaceState(null, '', `/metrics-dashboard?window=${encodeURIComponent(select.value)}`);
  void load();
});
byId<HTMLFormElement>('window-form').addEventListener('submit', (e) => e.preventDefault());
startShell();
new ResizeObserver(debounce(fit, 150)).observe(root);
const refresh = debounce(() => void load(), 1500);
live().on((e) => {
  if (e.type.startsWith('approval.')) refresh();
});
void load();
