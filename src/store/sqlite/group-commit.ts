import type { SqliteLink } from './link.ts';
import { StoreError } from '../../core/index.ts';

/** A transaction waiting for its group. */
interface Member {
  run: () => Promise<unknown>;
  /** Its writes need no sync of their own (see {@link groupCommit}'s `unsynced`). */
  unsynced: boolean;
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
async function runMembers(db: SqliteLink, pending: Member[], unsynced: boolean): Promise<Done[]> {
  const done: Done[] = [];
  // Members that join while earlier ones run (they queue during their awaits) ride along — in a group
  // that does not sync, only those that need no sync: the next one that does starts the next group.
  for (let n = 0; pending.length > 0 && n < MAX_GROUP && (!unsynced || pending[0]!.unsynced); n++) {
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

/** The connection's `synchronous` level as last set: `undefined` when a failure left it unknown. */
interface Level {
  current: 'FULL' | 'NORMAL' | undefined;
  /** Commits made at FULL: each synced the WAL. */
  syncs: number;
}

/** Run a transaction in a group (see {@link groupCommit}); `syncs` counts the commits that synced. */
export interface GroupCommit {
  <T>(run: () => Promise<T>, unsynced?: boolean): Promise<T>;
  readonly syncs: number;
}

/** One group: BEGIN, its members, one COMMIT; each member hears its outcome only after that COMMIT. */
async function runGroup(db: SqliteLink, pending: Member[], durability: 'full' | 'normal', level: Level): Promise<void> {
  if (pending.length === 0) return;
  // SQLite refuses to change the level inside a transaction: it is set with the BEGIN, and every group
  // that syncs sets it back before its own BEGIN, so no failure can leave a synced commit unsynced.
  const unsynced = durability === 'full' && pending[0]!.unsynced;
  const want = durability === 'normal' || unsynced ? 'NORMAL' : 'FULL';
  try {
    const set = level.current === want ? '' : `PRAGMA synchronous = ${want}; `;
    level.current = undefined;
    await db.exec(`${set}BEGIN IMMEDIATE`);
    level.current = want;
  } catch (err) {
    // A BEGIN that timed out may still run once the database answers: end it then.
    rollback(db);
    for (const m of pending.splice(0)) m.reject(err);
    return;
  }
  let done = await runMembers(db, pending, unsynced);
  // None standing: the transaction was rolled back (the rollback may still be on its way).
  if (done.length > 0 && db.inTransaction) {
    try {
      await db.exec('COMMIT');
      if (want === 'FULL') level.syncs++;
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
 * A transaction run with `unsynced` (a run lease taken, renewed or given back) commits without a
 * sync of its own when its group holds only such transactions: its writes are in the WAL, so they
 * survive a crash of the process; a power loss can undo them only together with everything after
 * them up to the next synced commit, which syncs them too, as the WAL is written and synced in order.
 * Only writes whose loss with the machine changes nothing may ask for it: a lease lost that way
 * belonged to a process the power loss stopped. (On a connection opened with `durability: 'normal'`
 * no commit syncs anyway.)
 *
 * `serialize` is the connection's queue: a group holds it from BEGIN to COMMIT,
 * so no other statement interleaves.
 */
export function groupCommit(
  db: SqliteLink,
  serialize: <T>(fn: () => Promise<T>) => Promise<T>,
  durability: 'full' | 'normal',
): GroupCommit {
  const pending: Member[] = [];
  // The connection opens at its durability's level (src/store/sqlite/session.ts).
  const level: Level = { current: durability === 'normal' ? 'NORMAL' : 'FULL', syncs: 0 };
  let scheduled = false;
  const schedule = () => {
    if (scheduled || pending.length === 0) return;
    scheduled = true;
    void serialize(async () => {
      scheduled = false;
      await runGroup(db, pending, durability, level);
      // Whoever queued after the group filled up, or after a failure, goes next.
      schedule();
    });
  };
  const transact = <T>(run: () => Promise<T>, unsynced = false) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ run, unsynced, resolve: resolve as (v: unknown) => void, reject });
      schedule();
    });
  return Object.defineProperty(transact, 'syncs', { get: () => level.syncs }) as GroupCommit;
}
