import { h, type Child } from './dom.ts';
import { when } from './time.ts';
import type { Me, ReviewPacket } from './types.ts';

/**
 * The review card's one status statement: where the request stands now, from its status and what
 * the packet says of its end (the execution's error, why it was cancelled, the request it handed
 * over to). One sentence at a time, never a promise: "Approved — waiting for the agent to run it"
 * becomes "Running", then "Ran" or "Failed: <error>". A planted check says what it was only once
 * decided, in one statement of its own; before that the card reads like any other (no statement).
 */

/** How the statement looks: the alert's colour. */
export type Tone = 'ok' | 'warn' | 'error' | 'info';

/** The statement and the word of the heading's pill. */
export interface Outcome {
  /** The pill's word ("pending", "ran", "failed", "planted check"…). */
  label: string;
  tone: Tone;
  /** The statement; null while pending (the countdown and the decisions say it all). */
  text: Child[] | null;
  /** A decided planted check (the statement's element gets its own id). */
  planted: boolean;
}

/** "you", a reviewer's name, or the id as given. */
function who(p: ReviewPacket, myself: Me, id: string | undefined): string {
  if (!id) return 'someone';
  return id === myself.id ? 'you' : (p.names[id] ?? id);
}

/** "a supervisor", "an operator", "2 supervisors". */
export function reviewersOf(role: string, approvals: number): string {
  if (approvals > 1) return `${approvals} ${role}s`;
  return `${/^[aeiou]/i.test(role) ? 'an' : 'a'} ${role}`;
}

function plantedOutcome(p: ReviewPacket, myself: Me, caught: boolean | null): Outcome {
  const by = who(p, myself, p.resolution?.by);
  const verb = p.resolution?.type === 'edit' ? 'editing' : 'approving';
  const text =
    caught === true
      ? `This was a planted check: ${by} caught it.`
      : caught === false
        ? `This was a planted check; ${verb} it ran nothing — it tests review.`
        : 'This was a planted check; nobody decided it in time, and it ran nothing — it tests review.';
  return {
    label: 'planted check',
    tone: caught === true ? 'ok' : caught === false ? 'error' : 'warn',
    text: [text],
    planted: true,
  };
}

/** A request an edit or a timeout handed over to: the rule that fired and who decides now. */
function supersededText(p: ReviewPacket, myself: Me): Child[] {
  const r = p.replacement;
  if (p.resolution?.type === 'timeout')
    return [
      `Not run here: nobody decided in time, so it went to ${r ? reviewersOf(r.requiredRole, r.approvalsRequired) : 'another reviewer'} as a new request.`,
    ];
  const by = who(p, myself, p.resolution?.by);
  const edit = by === 'you' ? 'Your edit' : `The edit by ${by}`;
  if (!r) return [`${edit} became a new request; this one did not run.`];
  return [
    `${edit} needs ${reviewersOf(r.requiredRole, r.approvalsRequired)}: rule `,
    h('code', null, r.ruleId),
    ` — ${r.reason}. It became a new request; this one did not run.`,
  ];
}

/** Why a request that never ran did not: expired, the thread ended, cancelled. */
function notRunText(p: ReviewPacket): string {
  if (p.status === 'expired')
    return `Not run: it expired at ${when(p.expiresAt)}, and its timeout default (${p.resolution?.applied ?? p.onTimeout}) applied.`;
  const reason = p.ended?.reason;
  if (reason && /^the thread /.test(reason))
    return `Not run: the thread ended (${reason.replace(/^the thread /, 'it ')}).`;
  return `Not run: cancelled${reason ? ` (${reason})` : ''}.`;
}

/** Where `p` stands now, as `myself` reads it. */
export function outcomeOf(p: ReviewPacket, myself: Me): Outcome {
  if (p.plantedCheck) return plantedOutcome(p, myself, p.plantedCheck.caught);
  const say = (label: string, tone: Tone, ...text: Child[]): Outcome => ({ label, tone, text, planted: false });
  const r = p.resolution;
  switch (p.status) {
    case 'pending':
      return { label: 'pending', tone: 'info', text: null, planted: false };
    case 'authorized':
      return say(
        'approved',
        'info',
        r?.type === 'timeout'
          ? 'Approved by its timeout default — waiting for the agent to run it.'
          : r?.type === 'edit'
            ? 'Edited and approved — waiting for the agent to run it.'
            : 'Approved — waiting for the agent to run it.',
      );
    case 'executing':
      return say('running', 'info', 'Running.');
    case 'executed':
      return say('ran', 'ok', p.ended ? `Ran at ${when(p.ended.at)}.` : 'Ran.');
    case 'failed':
      return say('failed', 'error', `Failed: ${p.ended?.error ?? 'the tool reported an error'}`);
    case 'rejected':
      return say('rejected', 'warn', 'Rejected — it did not run; the agent was told.');
    case 'responded':
      return say('answered', 'warn', 'Answered instead — the tool did not run; the agent got the answer.');
    case 'superseded':
      return say('replaced', 'warn', ...supersededText(p, myself));
    default:
      return say('not run', 'warn', notRunText(p));
  }
}

/** The statement as the card shows it, under the heading; nothing while pending. */
export function outcomeEl(o: Outcome, links: Array<{ href: string; label: string }> = []): HTMLElement | null {
  if (!o.text) return null;
  return h(
    'div',
    { class: `alert alert-${o.tone} outcome`, id: 'outcome', role: 'status', 'data-outcome': o.label },
    h('p', o.planted ? { id: 'planted-check' } : null, ...o.text),
    links.length
      ? h(
          'p',
          { class: 'alert-links' },
          links.map((l) => h('a', { href: l.href, class: 'btn btn-small' }, l.label)),
        )
      : null,
  );
}
