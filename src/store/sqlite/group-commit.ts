import type { DatabaseSync } from 'node:sqlite';
import { StoreError } from '../../core/index.ts';

/** A transaction waiting for its group. */
interface Member {
  run: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Transactions one group may hold: bounds how long the first waits for the others. */
const MAX_GROUP = 32;
const SAVEPOINT = 'il_group_member';

/**
 * Group commit on one SQLite connection. Transactions that queue up while the
 * connection is busy share one `BEGIN IMMEDIATE … COMMIT`: each runs in turn,
 * inside a savepoint (so one that fails is undone alone), and every caller
 * learns its outcome only after the shared COMMIT, which is the one WAL sync
 * that makes all of them durable. Nobody is told of a commit before it is on
 * disk, exactly as with one transaction per commit; with one transaction in
 * flight a group is plain `BEGIN … COMMIT`, with many, one sync covers many.
 *
 * `serialize` is the connection's queue: a group holds it from BEGIN to COMMIT,
 * so no other statement interleaves.
 */
export function groupCommit(
  db: DatabaseSync,
  serialize: <T>(fn: () => Promise<T>) => Promise<T>,
): <T>(run: () => Promise<T>) => Promise<T> {
  const pending: Member[] = [];
  let scheduled = false;
  const begin = () => db.exec('BEGIN IMMEDIATE');
  const commit = () => db.exec('COMMIT');
  // A failed rollback leaves nothing more to undo (the transaction is gone): never let it escape.
  const rollback = () => {
    try {
      if (db.isTransaction) db.exec('ROLLBACK');
    } catch {
      // already rolled back by SQLite
    }
  };
  const savepoint = () => db.exec(`SAVEPOINT ${SAVEPOINT}`);
  const release = () => db.exec(`RELEASE ${SAVEPOINT}`);
  const rollbackTo = () => db.exec(`ROLLBACK TO ${SAVEPOINT}`);

  const schedule = () => {
    if (scheduled || pending.length === 0) return;
    scheduled = true;
    void serialize(runGroup);
  };

  async function runGroup(): Promise<void> {
    scheduled = false;
    if (pending.length === 0) return;
    try {
      begin();
    } catch (err) {
      for (const m of pending.splice(0)) m.reject(err);
      return;
    }
    let done: Array<{ m: Member; value: unknown }> = [];
    // Members that join while earlier ones run (they queue during their awaits) ride along.
    for (let n = 0; pending.length > 0 && n < MAX_GROUP; n++) {
      const m = pending.shift()!;
      const inSavepoint = done.length > 0;
      try {
        if (inSavepoint) savepoint();
        const value = await m.run();
        if (inSavepoint) release();
        done.push({ m, value });
      } catch (err) {
        m.reject(err);
        if (!inSavepoint || !undo()) {
          // The first member failed (nothing else to keep), or SQLite rolled the whole transaction back
          // (I/O error, disk full): nothing of this group commits, and the others learn why.
          rollback();
          for (const d of done)
            d.m.reject(
              new StoreError(
                `The transaction was rolled back with another one of its commit group: ${(err as Error).message}. Retry it.`,
                err,
              ),
            );
          done = [];
          break;
        }
      }
    }
    if (db.isTransaction) {
      try {
        commit();
      } catch (err) {
        rollback();
        for (const d of done) d.m.reject(err);
        done = [];
      }
    }
    for (const d of done) d.m.resolve(d.value);
    // Whoever queued after the group filled up, or after a failure, goes next.
    schedule();
  }

  /** Undo the failed member's savepoint; false if the transaction itself is gone. */
  function undo(): boolean {
    if (!db.isTransaction) return false;
    try {
      rollbackTo();
      release();
      return true;
    } catch {
      return false;
    }
  }

  return <T>(run: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ run, resolve: resolve as (v: unknown) => void, reject });
      schedule();
    });
}
