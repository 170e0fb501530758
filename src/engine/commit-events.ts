import type { StoreTx } from '../store/types.ts';
import type { EngineContext, EngineEvent } from './context.ts';

/**
 * Whether an event must reach other processes even if this one dies right after its commit: what a
 * reviewer's screen shows about an approval request (its creation, decision, expiry, claims, notes
 * and the outcome of its action). The rest (a thread's status, an automatic call's outcome, a
 * deferred job) go out after the commit, batched: a NOTIFY inside a transaction holds a lock shared
 * by every notifying commit on the server until that commit is durable, so it is kept to the commits
 * that open or settle a request, not every step of every agent.
 */
export function mustArrive(e: EngineEvent): boolean {
  switch (e.type) {
    case 'approval.created':
    case 'approval.decided':
    case 'approval.expired':
    case 'claim.changed':
    case 'note.added':
      return true;
    case 'execution.finished':
      return e.requestId !== null;
    default:
      return false;
  }
}

/**
 * Run `fn` in one transaction and tell about it. Of the events `eventsOf` names for its result,
 * those that {@link mustArrive} go to other processes with the commit itself (so a process killed
 * between its commit and a later send cannot keep a decision from reviewers connected elsewhere);
 * the others are emitted after the commit. This process's listeners hear all of them once it has
 * committed. A failed or rolled-back transaction tells nobody anything.
 */
export async function commitWithEvents<T>(
  ctx: EngineContext,
  fn: (tx: StoreTx) => Promise<T>,
  eventsOf: (result: T) => readonly EngineEvent[],
): Promise<T> {
  let events: readonly EngineEvent[] = [];
  let published = false;
  const result = await ctx.store.transaction(async (tx) => {
    const out = await fn(tx);
    // Set on every attempt: a transaction retried after a serialization failure runs `fn` again.
    events = eventsOf(out);
    published = await ctx.events.publishIn(tx, events.filter(mustArrive));
    return out;
  });
  for (const e of events) {
    if (published && mustArrive(e)) ctx.events.local(e);
    else ctx.emit(e);
  }
  return result;
}
