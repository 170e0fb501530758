import type { StoreTx } from '../store/types.ts';
import type { EngineContext, EngineEvent } from './context.ts';

/**
 * Run `fn` in one transaction and tell about it: the events `eventsOf` names for its result go to
 * other processes with the commit itself (so a process killed between its commit and a later send
 * cannot keep a decision from reviewers connected elsewhere), and to this process's listeners once
 * it has committed. A failed or rolled-back transaction tells nobody anything.
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
    published = await ctx.events.publishIn(tx, events);
    return out;
  });
  for (const e of events) {
    if (published) ctx.events.local(e);
    else ctx.emit(e);
  }
  return result;
}
