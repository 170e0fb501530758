import { newId, transition, type ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';
import { commitWithEvents } from './commit-events.ts';

/**
 * The owner an execution claim is written under: this process's name and the attempt. The claim's
 * fence is the attempt, not the process: when an attempt stalls past its lease and another attempt
 * of the same process (or of a process configured with the same `owner`) takes the claim over, the
 * first one's renewals and outcome change nothing.
 */
export function attemptOwner(processOwner: string): string {
  return `${processOwner}/${newId('try')}`;
}

/** An execution claimed in the transaction that authorized it: the key, the action, the lease's owner. */
export interface PreClaim {
  key: string;
  requestId: string;
  actionHash: string;
  /** The claim's owner in the ledger ({@link attemptOwner}). */
  owner: string;
  /** When the claim's lease, as written with the decision, runs out. */
  leaseUntil: number;
}

/** What the engine keeps of a claim it issued: its fields as written, and the request as the decision left it. */
interface Issued extends PreClaim {
  /** The process (its `owner`) whose decision issued it: only that process runs it. */
  process: string;
  /** `executing`, as the decision wrote it: the outcome is written from it without reading it first. */
  request?: ApprovalRequest;
}

/**
 * The claims this process took with a decision and has neither used nor given back. A claim runs or is
 * given back once, and only as the object the decision returned: one built by hand, or used already,
 * claims as usual. What is checked and written is the engine's own copy, never the caller's object,
 * which the caller may change (a request redacted for a log, a field rewritten).
 */
const issued = new WeakMap<PreClaim, Issued>();

/** Record a claim the decision's transaction took (src/engine/decide.ts), once it is built. */
export function issueClaim(pre: PreClaim, process: string): PreClaim {
  issued.set(pre, { ...pre, process });
  return pre;
}

/** Keep the request as the decision that issued `pre` left it: a copy, so the caller's object can change freely. */
export function keepClaimedRequest(pre: PreClaim, request: ApprovalRequest): void {
  const kept = issued.get(pre);
  if (kept) kept.request = structuredClone(request);
}

/** Take an issued claim's token (it is then used up): the engine's copy, or undefined if it was not issued or is used. */
function take(pre: PreClaim): Issued | undefined {
  const kept = issued.get(pre);
  issued.delete(pre);
  return kept;
}

/**
 * Whether a claim taken with the decision stands for this call, now (it is then used up): the object
 * this process's decision returned, not used or given back yet, for this call's key and action, with at
 * least half its lease left. Nobody can have taken over a claim whose lease has not run out, and the
 * tool starts now and renews it from there — the same fence as a claim committed just before the tool
 * runs. A process that stalled past the lease (another run may have taken the call over) gets false.
 */
export function useClaim(
  pre: PreClaim,
  call: { key: string; hash: string; requestId: string | null | undefined; process: string },
  now: number,
  leaseMs: number,
): false | { request: ApprovalRequest | undefined; owner: string } {
  const kept = take(pre);
  const stands =
    kept !== undefined &&
    kept.key === call.key &&
    kept.actionHash === call.hash &&
    kept.requestId === call.requestId &&
    kept.process === call.process &&
    kept.leaseUntil - now >= leaseMs / 2;
  return stands ? { request: kept.request, owner: kept.owner } : false;
}

/**
 * Give back a claim taken with a decision that its run did not use (it stopped before the call):
 * the ledger row goes and the request is authorized again, in one transaction, for the run that
 * will execute it. False, and nothing changed, when the claim was used or given back already, or is
 * not this process's first attempt any more (its lease ran out and another run took it over).
 */
export async function releaseClaim(ctx: EngineContext, pre: PreClaim): Promise<boolean> {
  // Given back once, and never run after: the token goes first.
  const kept = take(pre);
  if (!kept) return false;
  return commitWithEvents(
    ctx,
    async (tx) => {
      // The ledger row first, then the request, as an outcome's transaction takes them.
      const releasing = tx.releaseExecution(kept.key, kept.owner);
      const reading = tx.getRequest(kept.requestId, { forUpdate: true });
      reading.catch(() => undefined); // awaited below, or not needed when the claim is not ours
      if (!(await releasing)) return false;
      const req = await reading;
      if (req?.status === 'executing')
        await tx.updateLockedRequest(transition(req, { type: 'release_execution' }, ctx.now()), req.version);
      return true;
    },
    () => [],
  );
}

/**
 * Requests this engine read and handed out authorized (`Interlock.callOutcome`), each with the engine's
 * own copy as read: the claim of its call can be written from that copy without reading the request
 * first (`ExecuteOptions.request`). The copy, not the caller's object, is checked and written.
 */
const readAuthorized = new WeakMap<ApprovalRequest, ApprovalRequest>();

/** Keep a copy of a request read from the store, if it is one a claim can be written from (authorized, not planted). */
export function keepRead(req: ApprovalRequest): void {
  if (req.status === 'authorized' && !req.planted) readAuthorized.set(req, structuredClone(req));
}

/** The engine's copy of a request it handed out (then used up), or undefined for any other object. */
export function takeRead(req: ApprovalRequest | undefined): ApprovalRequest | undefined {
  if (!req) return undefined;
  const kept = readAuthorized.get(req);
  readAuthorized.delete(req);
  return kept;
}
