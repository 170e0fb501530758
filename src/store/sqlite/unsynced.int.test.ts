/**
 * A run lease's commit needs no WAL sync of its own (src/store/sqlite/group-commit.ts, `unsynced`):
 * it commits at `synchronous = NORMAL` when its group holds only such writes, and every other
 * commit — whatever failed before it — runs at the store's own level. Read back with `PRAGMA
 * synchronous` inside each transaction, on a real database file.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { groupCommit } from './group-commit.ts';
import { inlineLink, type SqliteLink } from './link.ts';
import { createSqliteStore } from './sqlite-store.ts';

const T = 1_700_000_000_000;
const FULL = 2;
const NORMAL = 1;

function queue(): <R>(fn: () => Promise<R>) => Promise<R> {
  let tail: Promise<unknown> = Promise.resolve();
  return <R>(fn: () => Promise<R>) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

describe('sqlite commits without a sync of their own', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-unsynced-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A group commit over a real file, and the level each transaction of it ran at. */
  function rig(name: string, durability: 'full' | 'normal', busyTimeoutMs = 2000) {
    const path = join(dir, `${name}.db`);
    const link: SqliteLink = inlineLink({ path, durability, busyTimeoutMs });
    const run = groupCommit(link, queue(), durability);
    const level = async () => Number((await link.all('PRAGMA synchronous'))[0]!.synchronous);
    return { path, link, run, level };
  }

  it('commits a lone unsynced transaction at NORMAL and the next synced one at FULL', async () => {
    const { run, level, link } = rig('alone', 'full');
    assert.equal(await run(level, true), NORMAL);
    assert.equal(await run(level), FULL);
    assert.equal(await run(level, true), NORMAL);
    assert.equal(await run(level, true), NORMAL);
    assert.equal(await run(level), FULL);
    await link.close();
  });

  it('lets no synced transaction into an unsynced group; a synced group takes unsynced ones along', async () => {
    const { run, level, link } = rig('groups', 'full');
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const order: string[] = [];
    const member = (name: string, unsynced: boolean, wait?: Promise<void>) =>
      run(async () => {
        await wait;
        const at = await level();
        order.push(name);
        return at;
      }, unsynced);
    // The first holds its group open while the others queue behind it.
    const first = member('lease-1', true, gate);
    const queued = [member('pause', false), member('lease-2', true)];
    open();
    assert.deepEqual(await Promise.all([first, ...queued]), [NORMAL, FULL, FULL]);
    assert.deepEqual(order, ['lease-1', 'pause', 'lease-2']);
    await link.close();
  });

  it('sets the level again after a BEGIN that failed, so a synced commit after it still syncs', async () => {
    const { path, run, level, link } = rig('busy', 'full', 50);
    assert.equal(await run(level), FULL);
    // Another connection holds the write lock: the unsynced group's BEGIN fails after its level was set.
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    await assert.rejects(run(level, true), /locked|busy/i);
    other.exec('ROLLBACK');
    other.close();
    assert.equal(await run(level), FULL);
    await link.close();
  });

  it('never changes the level of a store opened with durability normal', async () => {
    const { run, level, link } = rig('normal', 'normal');
    const seen: string[] = [];
    const exec = link.exec.bind(link);
    link.exec = async (sql) => {
      seen.push(sql);
      return exec(sql);
    };
    assert.deepEqual([await run(level, true), await run(level), await run(level, true)], [NORMAL, NORMAL, NORMAL]);
    assert.ok(!seen.some((s) => /PRAGMA/i.test(s)), seen.join(' | '));
    await link.close();
  });

  it('commits the run lease unsynced, on the worker thread, and every other write synced', async () => {
    const store = createSqliteStore({ path: join(dir, 'store.db') });
    await store.migrate();
    const level = async () => Number((await store.unsafeQuery('PRAGMA synchronous'))[0]!.synchronous);
    const row = {
      id: 'thr_1',
      agent: 'a',
      agentVersion: '1',
      status: 'running' as const,
      messageCount: 0,
      abortRequested: false,
      metadata: {},
      createdAt: T,
      updatedAt: T,
    };
    const syncs = store.stats.syncs!;
    assert.equal((await store.claimThread(row, 'p1', T + 1000, T)).claimed, true);
    assert.equal(await level(), NORMAL, 'a lease claim');
    assert.equal(store.stats.syncs, syncs, 'a lease claim is not counted as a sync');
    await store.updateThread('thr_1', { status: 'completed' }, T + 1);
    assert.equal(await level(), FULL, 'a one-statement write outside a transaction');
    assert.equal(store.stats.syncs, syncs + 1);
    assert.equal(await store.renewThreadLease('thr_1', 'p1', T + 2000), true);
    assert.equal(await level(), NORMAL, 'a lease renewal');
    await store.transaction(async (tx) => tx.updateThread('thr_1', { status: 'running' }, T + 2));
    assert.equal(await level(), FULL, 'a transaction');
    await store.releaseThread('thr_1', 'p1', T + 3);
    assert.equal(await level(), NORMAL, 'a lease given back');
    assert.equal((await store.getThread('thr_1'))?.leaseOwner ?? null, null);
    await store.close();
  });
});
