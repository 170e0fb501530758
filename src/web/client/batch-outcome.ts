import type { BatchOutcome, BatchStage, NotRunReason } from '../batch-types.ts';
import { ApiError } from './api.ts';
import type { BatchState, ItemResult } from './batch-model.ts';
import { refusalReason } from './refusals.ts';
import type { RequestSummary } from './types.ts';

/**
 * What happened to each item after the batch was sent, in words, followed to its end: an approval
 * is not an execution, so "approved" is never the last word — an item says it waits to run, runs,
 * ran, failed (with the tool's error) or did not run (and why). Only an item that ran gets a ✔.
 */

/** How an item's line looks: its mark and its class. */
export type OutcomeKind = 'ok' | 'failed' | 'notrun' | 'waiting' | 'skipped';

/** An item's outcome line. */
export interface OutcomeLine {
  kind: OutcomeKind;
  mark: string;
  text: string;
}

const NOT_RUN_TEXT: Record<NotRunReason, string> = {
  planted: 'this was a planted check; approving it ran nothing — it tests review',
  cancelled: 'cancelled before it could run',
  expired: 'it expired before enough reviewers approved it',
  rejected: 'another reviewer rejected it',
  responded: 'another reviewer answered it instead',
  superseded: 'it was replaced by an edited request',
};

/** The words for where an approved action stands now. */
function stageLine(o: BatchOutcome): OutcomeLine {
  switch (o.stage) {
    case 'ran':
      return { kind: 'ok', mark: '✔', text: 'ran' };
    case 'failed':
      return { kind: 'failed', mark: '✖', text: `failed: ${o.error ?? 'the tool reported an error'}` };
    case 'not_run':
      return {
        kind: 'notrun',
        mark: '○',
        text: `did not run: ${NOT_RUN_TEXT[o.notRun ?? 'cancelled']}${o.reason ? ` (${o.reason})` : ''}`,
      };
    case 'running':
      return { kind: 'waiting', mark: '⏳', text: 'running now' };
    case 'counting':
      return {
        kind: 'waiting',
        mark: '◔',
        text: `counted ${o.approvalsReceived}/${o.approvalsRequired} toward quorum (it runs once ${o.approvalsRequired} reviewers approve)`,
      };
    default:
      return { kind: 'waiting', mark: '⏳', text: 'waiting to run' };
  }
}

/** The outcome the decision's answer implies, before the first outcomes read. */
function fromAnswer(res: Extract<ItemResult, { ok: true }>): BatchOutcome {
  return {
    id: res.id,
    status: res.status,
    stage: res.outcome === 'pending' ? 'counting' : 'waiting',
    approvalsReceived: res.approvalsReceived,
    approvalsRequired: res.approvalsRequired,
  };
}

/** What happened to one item, or undefined before anything was sent. */
export function outcomeLine(s: BatchState, r: RequestSummary): OutcomeLine | undefined {
  const result = s.result;
  if (!result) return undefined;
  if (result.skipped.includes(r.id))
    return { kind: 'skipped', mark: '–', text: 'not ticked: left pending for a decision of its own' };
  const res = result.results.find((x) => x.id === r.id);
  if (!res) return undefined;
  if (!res.ok) {
    // The refusal's own details say where the request stands now; the page's copy of it is from
    // before (still "pending"), so only its expiry and timeout default are lent to the wording.
    const e = res.error;
    const why = refusalReason(new ApiError(e.status, e.code, e.message, e.details ?? {}), {
      expiresAt: r.expiresAt,
      onTimeout: r.onTimeout,
    });
    return { kind: 'failed', mark: '✖', text: `refused: ${why}` };
  }
  const line = stageLine(s.outcomes.get(r.id) ?? fromAnswer(res));
  // A quorum vote is not an approval: its line says what the vote did, then where the action stands.
  if (res.outcome === 'pending')
    return line.text.startsWith('counted') ? line : { ...line, text: `your approval counted; then it ${line.text}` };
  return { ...line, text: `approved — ${line.text}` };
}

const FINAL: ReadonlySet<BatchStage> = new Set(['ran', 'failed', 'not_run']);

/** Whether every approved item has reached its end (nothing more to follow). */
export function allSettled(s: BatchState): boolean {
  return (s.result?.results ?? []).every((x) => !x.ok || FINAL.has(s.outcomes.get(x.id)?.stage ?? 'waiting'));
}

/**
 * The summary line, as the items settle: "16 approved: 1 ran, 12 failed, 3 did not run." then
 * what is still to run, the quorum votes, the refusals and the items not ticked.
 */
export function outcomeSummary(s: BatchState): string {
  const r = s.result;
  if (!r) return '';
  const approved = r.results.filter((x) => x.ok && x.outcome !== 'pending');
  const stages = approved.map((x) => s.outcomes.get(x.id)?.stage ?? 'waiting');
  const count = (st: BatchStage) => stages.filter((x) => x === st).length;
  const toRun = count('waiting') + count('running');
  const head = approved.length
    ? `${approved.length} approved: ${count('ran')} ran, ${count('failed')} failed, ${count('not_run')} did not run${toRun ? `, ${toRun} still to run` : ''}.`
    : 'Nothing approved.';
  const counted = r.results.filter((x) => x.ok && x.outcome === 'pending').length;
  const refused = r.results.filter((x) => !x.ok).length;
  const rest = [
    counted ? `${counted} counted toward a quorum (not yet approved)` : '',
    refused ? `${refused} refused (see each item)` : '',
    r.skipped.length ? `${r.skipped.length} not ticked, still pending` : '',
  ].filter(Boolean);
  return rest.length ? `${head} ${rest.join(', ')}.` : head;
}
