/**
 * Writes sent without reading first (src/engine/execute.ts): what a checked write that found its row
 * not as expected throws, and how the caller then does it again, reading.
 */

/**
 * A transaction wrote the ledger row or the request without reading it first (one round trip), as
 * this process expected it to be, and it was not: nothing of that transaction was written. The
 * caller does it again, reading them.
 */
export class Recheck extends Error {}
export const keyTaken = () => new Recheck("The execution's key is in the ledger already.");
export const claimMoved = () => new Recheck('The execution claim or its request moved while the call ran.');

/** On {@link Recheck}, do it again reading first; any other failure stands. */
export function again<R>(retry: () => Promise<R>): (err: unknown) => Promise<R> {
  return (err) => {
    if (err instanceof Recheck) return retry();
    throw err;
  };
}
