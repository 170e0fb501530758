import { changesLine, diffArgs, diffTable } from './diff.ts';
import { h, type Child } from './dom.ts';
import { exactJson, roleChip, short, show, tierBadge } from './format.ts';
import type { Outcome } from './outcome.ts';
import { describeHidden, findHiddenDeep, findMixedScriptDeep } from './reveal.ts';
import { countdown, when } from './time.ts';
import type { Args, Me, ReviewPacket } from './types.ts';
import { unavailableReason } from './refusals.ts';

/**
 * The read-only half of the review card: what will run and why it needs a
 * person, from the review packet. Deciding lives in review-page.ts.
 */

/** Why `myself` cannot decide `p` now (when `allowedDecisions` is empty), in the API's refusal words. */
export function whyNot(p: ReviewPacket, myself: Me): string {
  if (p.status !== 'pending') return 'This request takes no more decisions.';
  const code = p.refusals.approve ?? Object.values(p.refusals)[0];
  if (code === 'request_expired' || Date.parse(p.expiresAt) <= Date.now())
    return `This request expired; its timeout default (${p.onTimeout}) applies.`;
  if (!code) return 'You cannot decide this request.';
  const why = unavailableReason(code, { requiredRole: p.requiredRole }, p);
  const more =
    code === 'duplicate_reviewer' || p.approvedBy.includes(myself.id)
      ? ` Waiting for ${p.approvalsRequired - p.approvalsReceived} more approval(s).`
      : '';
  return `${why.charAt(0).toUpperCase()}${why.slice(1)}${more}`;
}

function argsTable(args: Args): HTMLElement {
  return h(
    'table',
    { class: 'args', 'aria-label': 'Arguments' },
    h(
      'tbody',
      null,
      Object.entries(args).map(([k, v]) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, h('code', null, k)),
          h(
            'td',
            null,
            typeof v === 'object' && v !== null
              ? h('pre', { class: 'mono' }, exactJson(v))
              : h('span', { class: 'mono value' }, show(v)),
          ),
        ),
      ),
    ),
  );
}

/**
 * The warning above the arguments when they hold hidden characters (or words
 * mixing Latin with look-alike letters): the card shows them marked, and the
 * reviewer must know the marks are in the bytes that will run.
 */
export function hiddenWarning(args: Args): HTMLElement | null {
  const hidden = findHiddenDeep(args);
  const mixed = findMixedScriptDeep(args);
  if (hidden.length === 0 && mixed.length === 0) return null;
  return h(
    'div',
    { class: 'alert alert-error hidden-warning', role: 'alert', id: 'hidden-warning' },
    hidden.length
      ? h(
          'p',
          null,
          h('strong', null, 'This action contains hidden characters'),
          `: ${describeHidden(hidden)}. They run exactly as sent but cannot be seen in plain text; each is shown below as ⟨U+…⟩. Approve only if you expected them.`,
        )
      : null,
    mixed.length
      ? h(
          'p',
          null,
          h('strong', null, 'Look-alike letters'),
          `: these words mix Latin with Cyrillic or Greek letters: ${mixed.join(', ')}.`,
        )
      : null,
  );
}

function fact(term: string, ...value: Child[]): Child[] {
  return [h('dt', null, term), h('dd', null, ...value)];
}

/** A reviewer (or agent) as people read it: "you", the reviewer's name, else the id as given. */
function nameOf(p: ReviewPacket, myself: Me, id: string): string {
  return id === myself.id ? 'you' : (p.names?.[id] ?? id);
}

function approvers(p: ReviewPacket, myself: Me): string {
  if (p.approvedBy.length === 0) return '';
  return ` — by ${p.approvedBy.map((x) => nameOf(p, myself, x)).join(', ')}`;
}

/** "edited by Sam Supervisor: amount 850 → 300" for an edit that ran as edited; undefined otherwise. */
function editLine(p: ReviewPacket, myself: Me): string | undefined {
  const r = p.resolution;
  if (r?.type !== 'edit' || !r.originalArgs || p.supersededBy) return undefined;
  return `edited by ${nameOf(p, myself, r.by)}: ${changesLine(r.originalArgs, p.args)}`;
}

/** Past tense of a decision, for "rejected by Maria Supervisor". */
const DONE: Record<string, string> = { approve: 'approved', edit: 'edited', reject: 'rejected', respond: 'answered' };

function resolutionFacts(p: ReviewPacket, myself: Me): Child[] {
  const r = p.resolution;
  if (!r) return [];
  const what =
    r.type === 'timeout'
      ? `timed out (${r.applied ?? p.onTimeout} applied)`
      : `${DONE[r.type] ?? r.type} by ${nameOf(p, myself, r.by)}`;
  const out: Child[] = [...fact('Decision', `${what} at ${when(r.at)}`)];
  if (r.message) out.push(...fact('Message', h('span', { class: 'user-text' }, r.message)));
  if (r.originalArgs) out.push(...fact('Edited from', diffTable(diffArgs(r.originalArgs, p.args))));
  return out;
}

/** Why it paused; after an edit that ran, said of the proposal, with what the edit changed. */
function reasonFact(p: ReviewPacket, myself: Me): Child[] {
  const edit = editLine(p, myself);
  if (!edit) return fact('Reason', p.reason);
  return fact(
    'Reason',
    h('span', { class: 'muted' }, 'The proposal paused because: '),
    p.reason,
    '. ',
    h('strong', { id: 'edit-line' }, `Then ${edit}.`),
  );
}

/**
 * What will run and why it needs a person; `onExpired` fires when the countdown reaches zero.
 * `related` is the mount point right under the arguments (`#related-facts`): the page keeps one
 * element across renders, so whatever is placed in it survives live updates.
 */
export function actionSection(p: ReviewPacket, myself: Me, onExpired: () => void, related: HTMLElement): HTMLElement {
  return h(
    'section',
    { class: 'action', 'aria-labelledby': 'h-action' },
    h('h2', { id: 'h-action' }, p.status === 'pending' ? 'What will run' : 'The action'),
    hiddenWarning(p.args),
    h('p', { class: 'tool-line' }, 'Tool ', h('code', { class: 'tool-name' }, p.tool), ' with these arguments:'),
    argsTable(p.args),
    h(
      'details',
      { class: 'exact' },
      h('summary', null, 'Exact arguments as JSON'),
      h('pre', { class: 'mono', id: 'exact-args' }, exactJson(p.args)),
    ),
    related,
    h('h2', null, 'Why it needs a person'),
    h(
      'dl',
      { class: 'facts' },
      reasonFact(p, myself),
      fact('Policy rule', h('code', null, p.ruleId)),
      fact('Tier', tierBadge(p.tier)),
      fact('Required role', roleChip(p.requiredRole)),
      fact(
        'Approvals',
        h('span', { id: 'approvals' }, `${p.approvalsReceived} of ${p.approvalsRequired} received`),
        approvers(p, myself),
      ),
      fact(
        'Expires',
        p.status === 'pending'
          ? [
              h(
                'strong',
                null,
                'in ',
                countdown(h('span', { class: 'countdown', id: 'expires-in' }), p.expiresAt, onExpired),
              ),
              ' ',
              h('span', { class: 'muted' }, `(${when(p.expiresAt)})`),
            ]
          : h('span', { class: 'muted' }, when(p.expiresAt)),
      ),
      fact(
        'If nobody decides',
        p.onTimeout === 'escalate' && p.escalateTo ? `escalate to ${p.escalateTo.role}` : p.onTimeout,
      ),
      fact('Thread', h('a', { href: `/threads/${encodeURIComponent(p.threadId)}` }, short(p.threadId, 20))),
      fact(
        'Proposed by',
        nameOf(p, myself, p.proposer),
        // In a tree of agents: who asked, from the root agent (or graph) down.
        p.agentPath ? h('span', { class: 'agent-path muted' }, ` (${p.agentPath.join(' › ')})`) : null,
      ),
      fact('Version · action hash', `v${p.version} · `, short(p.actionHash, 16)),
      resolutionFacts(p, myself),
      p.supersededBy
        ? fact(
            'Replaced by',
            h('a', { href: `/approvals/${encodeURIComponent(p.supersededBy)}` }, short(p.supersededBy, 20)),
          )
        : null,
    ),
  );
}

/**
 * The card's heading (focusable, so the page can start there) with the pill of the status
 * statement, and the tier, role, approvals and time left.
 */
export function reviewHeader(p: ReviewPacket, outcome: Outcome): HTMLElement {
  return h(
    'header',
    { class: 'review-head' },
    h(
      'h1',
      { id: 'review-title', tabindex: '-1' },
      h('code', { class: 'tool-name' }, p.tool),
      ' ',
      h('span', { class: `pill status-${outcome.planted ? 'planted' : p.status}` }, outcome.label),
    ),
    h(
      'p',
      { class: 'review-sub' },
      tierBadge(p.tier),
      ' ',
      roleChip(p.requiredRole),
      ' ',
      h('span', { class: 'chip' }, `${p.approvalsReceived}/${p.approvalsRequired} approvals`),
      ' ',
      p.status === 'pending'
        ? h('span', { class: 'chip' }, 'expires in ', countdown(h('span', { class: 'countdown' }), p.expiresAt))
        : null,
    ),
  );
}
