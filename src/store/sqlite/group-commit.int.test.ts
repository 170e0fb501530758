/**
 * Group commit on the embedded store: transactions in flight together share a
 * commit, yet each one keeps its own outcome, and nobody hears of a commit
 * before it is on disk.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createSqliteStore } from './sqlite-store.ts';
import type { Store } from '../types.ts';

const T = 1_700_000_000_000;
const thread = (id: string) => ({
  id,
  agent: 'a',
  agentVersion: '1',
  status: 'running' as const,
  messageCount: 0,
  abortRequested: false,
  metadata: {},
  createdAt: T,
  updatedAt: T,
});

describe('sqlite group commit', () => {
  let dir: string;
  let path: string;
  let store: Store;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-group-'));
    path = join(dir, 'g.db');
    store = createSqliteStore({ path });
    await store.migrate();
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits every transaction of a concurrent burst, each with its own result', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
    const results = await Promise.all(
      ids.map((id) =>
        store.transaction(async (tx) => {
          await tx.insertThread(thread(id));
          return (await tx.getThread(id))?.id;
        }),
      ),
    );
    assert.deepEqual(results, ids);
    for (const id of ids) assert.equal((await store.getThread(id))?.id, id);
  });

  it('undoes a failing transaction alone; the others of its group commit', async () => {
    const outcomes = await Promise.allSettled([
      store.transaction(async (tx) => tx.insertThread(thread('keep-1'))),
      store.transaction(async (tx) => {
        await tx.insertThread(thread('undone'));
        throw new Error('changed my mind');
      }),
      store.transaction(async (tx) => tx.insertThread(thread('keep-2'))),
      // A constraint violation inside a group is also the failing transaction's alone.
      store.transaction(async (tx) => {
        await tx.insertThread(thread('dup'));
        await tx.appendMessages('dup', 0, [{ role: 'user', content: 'once' }]);
        await tx.appendMessages('dup', 0, [{ role: 'user', content: 'twice at one position' }]);
      }),
      store.transaction(async (tx) => tx.insertThread(thread('keep-3'))),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /changed my mind/);
    for (const id of ['keep-1', 'keep-2', 'keep-3']) assert.ok(await store.getThread(id), `${id} committed`);
    for (const id of ['undone', 'dup']) assert.equal(await store.getThread(id), undefined, `${id} rolled back`);
  });

  it('undoes a failing first transaction and still runs the ones queued behind it', async () => {
    const outcomes = await Promise.allSettled([
      store.transaction(async (tx) => {
        await tx.insertThread(thread('first-undone'));
        throw new Error('first fails');
      }),
      store.transaction(async (tx) => tx.insertThread(thread('after-first'))),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'fulfilled'],
    );
    assert.equal(await store.getThread('first-undone'), undefined);
    assert.ok(await store.getThread('after-first'));
  });

  it('sends the writes nobody waits for with the next statement that is waited for: one message, in order', async () => {
    const before = { ...store.stats };
    const seen = await store.transaction(async (tx) => {
      await tx.insertThread(thread('deferred')); // answered: whether the row was new
      for (let i = 1; i <= 5; i++) await tx.updateThread('deferred', { messageCount: i }, T + i); // deferred
      return tx.getThread('deferred'); // goes with the five, after them
    });
    assert.equal(seen?.messageCount, 5, 'the read sees the writes sent before it');
    assert.equal(store.stats.statements - before.statements, 7);
    // BEGIN; the insert; the five updates with the read; COMMIT.
    assert.equal((store.stats.hops ?? 0) - (before.hops ?? 0), 4);
    assert.equal((await store.getThread('deferred'))?.messageCount, 5);
  });

  it("fails a transaction whose deferred write fails, as that transaction's failure, and nothing of it lands", async () => {
    const leaseLost = new Error('lease lost: another run holds the thread');
    // A checked write that changes no row (the lease is not this owner's), with writes before and behind it.
    const fenced = (id: string) =>
      store.transaction(async (tx) => {
        await tx.updateThread(id, { status: 'completed' }, T + 1);
        await tx.writeFencedCheckpoint(
          {
            threadId: id,
            leaseOwner: 'not-the-owner',
            status: 'completed',
            agentVersion: '1',
            messages: [{ role: 'user', content: 'never' }],
            releaseLease: false,
            checkpoint: { id: `cp-${id}`, schemaVersion: 1, state: {}, createdAt: T + 1 },
          },
          T + 1,
          () => leaseLost,
        );
      });
    // First of its group (no savepoint of its own) and in the middle of one.
    for (const at of [0, 1]) {
      const id = `fenced-${at}`;
      await store.transaction(async (tx) => tx.insertThread(thread(id)));
      // Started in this order: the fenced one first of its group, or second.
      const starts: Array<() => Promise<unknown>> = [`beside-${at}-a`, `beside-${at}-b`].map(
        (b) => () => store.transaction(async (tx) => tx.insertThread(thread(b))),
      );
      starts.splice(at, 0, () => fenced(id));
      const burst = starts.map((start) => start());
      const outcomes = await Promise.allSettled(burst);
      const want = ['fulfilled', 'fulfilled'];
      want.splice(at, 0, 'rejected');
      assert.deepEqual(
        outcomes.map((o) => o.status),
        want,
      );
      assert.equal((outcomes[at] as PromiseRejectedResult).reason, leaseLost, "the check's own error");
      assert.equal((await store.getThread(id))?.status, 'running', 'its earlier deferred write is undone too');
      assert.deepEqual(await store.listMessages(id), []);
      for (const b of [`beside-${at}-a`, `beside-${at}-b`]) assert.ok(await store.getThread(b), `${b} committed`);
    }
  });

  it('resolves a transaction only once its commit is visible to another connection', async () => {
    const other = new DatabaseSync(path);
    try {
      const seen = await Promise.all(
        ['vis-1', 'vis-2', 'vis-3'].map(async (id) => {
          await store.transaction(async (tx) => tx.insertThread(thread(id)));
          return other.prepare('SELECT COUNT(*) AS n FROM il_threads WHERE id = ?').get(id) as { n: number };
        }),
      );
      assert.deepEqual(
        seen.map((r) => Number(r.n)),
        [1, 1, 1],
      );
    } finally {
      other.close();
    }
  });
});
