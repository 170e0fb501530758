import { canonicalJson, sha256 } from '../core/index.ts';

/** One request of a batch, as the reviewer was shown it. */
export interface BatchItem {
  id: string;
  expectedVersion: number;
  actionHash: string;
}

/**
 * The digest that binds a batch approval to the exact list shown: SHA-256 of
 * the canonical JSON of `[{ id, expectedVersion, actionHash }, …]` in display
 * order. A request added to the group later, or a list in another order or
 * with another version, has another digest.
 * @example
 * batchDigest([{ id: 'apr_1', expectedVersion: 1, actionHash: 'ab…' }]) // '9f…' (64 hex digits)
 */
export function batchDigest(items: readonly BatchItem[]): string {
  return sha256(
    canonicalJson(items.map((i) => ({ id: i.id, expectedVersion: i.expectedVersion, actionHash: i.actionHash }))),
  );
}
