import { claimChip } from './claims.ts';
import { h } from './dom.ts';
import { actorName, argsLine, hiddenChip, roleChip, short, tierBadge } from './format.ts';
import type { QueueItem } from './queue-api.ts';
import { findMixedScriptDeep } from './reveal.ts';
import { countdown } from './time.ts';
import type { Me } from './types.ts';

/**
 * One row of the queue: what the request is, why it paused, how long is left, and — when the
 * reviewer cannot decide it — why, so keyboard navigation passes over nothing silently.
 */

/** Why `me` cannot approve `r` now, as a short code and sentence; null when they can. */
export function cannotDecide(r: QueueItem, me: Me): { code: string; text: string } | null {
  if (r.status !== 'pending' || r.allowedDecisions.includes('approve')) return null;
  if (!me.roles.includes(r.requiredRole))
    return { code: 'forbidden_role', text: `not your role (needs ${r.requiredRole}) — you can read it` };
  if (r.proposer === me.id) return { code: 'self_approval', text: 'you proposed this edit — another reviewer decides' };
  if (Date.parse(r.expiresAt) <= Date.now()) return { code: 'request_expired', text: 'expired — it takes no decision' };
  if (r.approvalsReceived > 0 && r.allowedDecisions.length > 0) {
    const left = r.approvalsRequired - r.approvalsReceived;
    const waiting = left === 1 ? 'a second reviewer' : `${left} more reviewers`;
    return { code: 'duplicate_reviewer', text: `your vote is in — waiting for ${waiting}` };
  }
  const only = r.allowedDecisions.join(', ');
  return { code: 'decision_not_allowed', text: only ? `takes no approval here: ${only} only` : 'you cannot decide it' };
}

/** A warning chip for look-alike words (Latin mixed with Cyrillic or Greek), as the card flags them. */
export function lookalikeChip(args: QueueItem['args']): HTMLElement | null {
  const words = findMixedScriptDeep(args);
  if (words.length === 0) return null;
  return h(
    'span',
    {
      class: 'chip chip-hidden chip-lookalike',
      title: `Words mixing Latin with Cyrillic or Greek letters (look-alikes): ${words.join(', ')}`,
    },
    `⚠ look-alike letters: ${words.slice(0, 2).join(', ')}`,
  );
}

function title(r: QueueItem, fresh: boolean, blocked: { text: string } | null): HTMLElement {
  return h(
    'h2',
    { class: 'qtitle' },
    h(
      'a',
      {
        class: 'qlink',
        href: `/approvals/${encodeURIComponent(r.id)}`,
        ...(blocked && { 'aria-description': `You cannot approve it: ${blocked.text}` }),
      },
      r.tool,
    ),
    ' ',
    tierBadge(r.tier),
    ' ',
    roleChip(r.requiredRole),
    fresh ? h('span', { class: 'chip chip-new' }, 'new') : null,
    ' ',
    hiddenChip(r.args),
    ' ',
    lookalikeChip(r.args),
  );
}

/** The row of `r`; `fresh` marks a live arrival, `onExpire` runs when its countdown reaches zero. */
export function queueRow(r: QueueItem, me: Me, opts: { fresh?: boolean; onExpire?: () => void } = {}): HTMLLIElement {
  const blocked = cannotDecide(r, me);
  return h(
    'li',
    {
      class: `qitem${opts.fresh ? ' is-new' : ''}${blocked ? ' is-undecidable' : ''}`,
      'data-id': r.id,
      'data-tool': r.tool,
      ...(blocked && { 'data-cannot': blocked.code }),
    },
    h(
      'div',
      { class: 'qmain' },
      title(r, opts.fresh ?? false, blocked),
      h('p', { class: 'qargs mono' }, argsLine(r.args)),
      h('p', { class: 'qreason' }, r.reason),
      blocked ? h('p', { class: 'qcannot' }, h('span', { class: 'chip chip-cannot' }, blocked.text)) : null,
      claimChip(r.id, me),
    ),
    h(
      'div',
      { class: 'qside' },
      h(
        'p',
        { class: 'qleft' },
        h('span', { class: 'sr-only' }, 'Time left: '),
        countdown(h('span', { class: 'countdown' }), r.expiresAt, opts.onExpire),
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
    ),
  );
}

const DONE: Record<string, string> = {
  authorized: 'approved',
  executing: 'approved',
  executed: 'approved',
  failed: 'approved',
  rejected: 'rejected',
  responded: 'answered',
  superseded: 'edited',
  cancelled: 'cancelled',
};

/** What happened to a request that left the queue: "approved by Maria Supervisor", "expired". */
export function decidedLine(r: QueueItem, names: Record<string, string>, me: Me): string {
  if (r.status === 'expired') return 'expired — the timeout default applied';
  const what = DONE[r.status] ?? r.status;
  const by = r.resolution?.by;
  if (!by || by.startsWith('system')) return what;
  return `${what} by ${by === me.id ? 'you' : actorName(by, names)}`;
}

/**
 * Grey a row whose request was just decided, saying by whom, instead of taking it away under
 * the reviewer's cursor: it stays readable and focusable until the page lets it go.
 */
export function markDecided(li: HTMLElement, r: QueueItem, names: Record<string, string>, me: Me): void {
  const line = decidedLine(r, names, me);
  li.classList.add('is-decided');
  li.classList.remove('is-undecidable', 'is-new');
  li.dataset.status = r.status;
  li.querySelector('.qdecided')?.remove();
  li.querySelector('.qcannot')?.remove();
  li.querySelector('.qmain')?.appendChild(h('p', { class: 'qdecided', role: 'status' }, line));
  li.querySelector('a.qlink')?.setAttribute('aria-description', `No longer pending: ${line}`);
}
