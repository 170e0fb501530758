import { performance } from 'node:perf_hooks';

/** How long `/readyz` keeps reporting a full disk after the last write that failed for it, when no write succeeds meanwhile. */
export const STORAGE_FULL_HOLD_MS = 30_000;

/**
 * What this process last learned about its database's storage: a write refused for a full (or failing)
 * disk marks it full; a write that commits clears it. `/readyz` answers 503 `storage_full` while it is
 * marked. The mark also lapses {@link STORAGE_FULL_HOLD_MS} after the last refused write: a replica
 * taken out of rotation receives no writes that could clear it, and it must be let back in to find
 * out whether space has returned.
 */
export interface StorageState {
  /** A write failed because the storage is full. */
  markFull(): void;
  /** A write committed: there is space again. */
  markWritten(): void;
  /** Whether `/readyz` should report the storage full now. */
  readonly full: boolean;
}

/** A {@link StorageState} on the monotonic clock (a wall clock step neither stretches nor ends the hold). */
export function createStorageState(
  holdMs = STORAGE_FULL_HOLD_MS,
  now: () => number = () => performance.now(),
): StorageState {
  let lastFull: number | undefined;
  return {
    markFull() {
      lastFull = now();
    },
    markWritten() {
      lastFull = undefined;
    },
    get full() {
      return lastFull !== undefined && now() - lastFull < holdMs;
    },
  };
}
