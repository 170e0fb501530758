import type { SqliteLink } from './link.ts';
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

/** A member whose work stands so far, and the value it is to hear once the group commits. */
interface Done {
  m: Member;
  value: unknown;
}

// Sent, not waited for: it runs after whatever is still out (a statement stuck on a stalled disk
// included), and a failed rollback leaves nothing more to undo (the transaction is gone).
function rollback(db: SqliteLink): void {
  db.post('ROLLBACK');
}

/** Undo the failed member's savepoint; false if the transaction itself is gone. */
async function undo(db: SqliteLink): Promise<boolean> {
  if (!db.inTransaction) return false;
  try {
    await db.exec(`ROLLBACK TO ${SAVEPOINT}; RELEASE ${SAVEPOINT}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Run queued members in the open transaction, each after the first in a savepoint, up to
 * {@link MAX_GROUP}. Returns those whose work stands; none when the whole transaction went.
 */
async function runMembers(db: SqliteLink, pending: Member[]): Promise<Done[]> {
  const done: Done[] = [];
  // Members that join while earlier ones run (they queue during their awaits) ride along.
  for (let n = 0; pending.length > 0 && n < MAX_GROUP; n++) {
    const m = pending.shift()!;
    const inSavepoint = done.length > 0;
    try {
      if (inSavepoint) await db.exec(`SAVEPOINT ${SAVEPOINT}`);
      const value = await m.run();
      if (inSavepoint) await db.exec(`RELEASE ${SAVEPOINT}`);
      done.push({ m, value });
    } catch (err) {
      m.reject(err);
      if (!inSavepoint || !(await undo(db))) {
        // The first member failed (nothing else to keep), or SQLite rolled the whole transaction back
        // (I/O error, disk full): nothing of this group commits, and the others learn why.
        rollback(db);
        for (const d of done)
          d.m.reject(
            new StoreError(
              `The transaction was rolled back with another one of its commit group: ${(err as Error).message}. Retry it.`,
              err,
            ),
          );
        return [];
      }
    }
  }
  return done;
}

/** One group: BEGIN, its members, one COMMIT; each member hears its outcome only after that COMMIT. */
async function runGroup(db: SqliteLink, pending: Member[]): Promise<void> {
  if (pending.length === 0) return;
  try {
    await db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    // A BEGIN that timed out may still run once the database answers: end it then.
    rollback(db);
    for (const m of pending.splice(0)) m.reject(err);
    return;
  }
  let done = await runMembers(db, pending);
  // None standing: the transaction was rolled back (the rollback may still be on its way).
  if (done.length > 0 && db.inTransaction) {
    try {
      await db.exec('COMMIT');
    } catch (err) {
      rollback(db);
      for (const d of done) d.m.reject(err);
      done = [];
    }
  }
  for (const d of done) d.m.resolve(d.value);
}

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
  db: SqliteLink,
  serialize: <T>(fn: () => Promise<T>) => Promise<T>,
): <T>(run: () => Promise<T>) => Promise<T> {
  const pending: Member[] = [];
  let scheduled = false;
  const schedule = () => {
    if (scheduled || pending.length === 0) return;
    scheduled = true;
    void serialize(async () => {
      scheduled = false;
      await runGroup(db, pending);
      // Whoever queued after the group filled up, or after a failure, goes next.
      schedule();
    });
  };
  return <T>(run: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ run, resolve: resolve as (v: unknown) => void, reject });
      schedule();
    });
}
