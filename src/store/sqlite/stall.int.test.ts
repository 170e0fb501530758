import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createSqliteStore } from './sqlite-store.ts';
import { isStoreUnavailable } from '../unavailable.ts';
import type { Store } from '../types.ts';
import { mountScratch } from '../../../test/reliability/scratch-mount.ts';

const WAIT_MS = 400;

/** The longest the event loop went without running a 10 ms timer while `fn` ran. */
async function loopLag<T>(fn: () => Promise<T>): Promise<{ value: T | Error; lagMs: number; tookMs: number }> {
  let last = performance.now();
  let lag = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 10);
    last = now;
  }, 10);
  const t0 = performance.now();
  let value: T | Error;
  try {
    value = await fn();
  } catch (err) {
    value = err as Error;
  }
  const tookMs = performance.now() - t0;
  clearInterval(timer);
  // A stop that lasted until now never let the timer run: count it too.
  lag = Math.max(lag, performance.now() - last - 10);
  return { value, lagMs: Math.round(lag), tookMs: Math.round(tookMs) };
}

const schema = (s: Store) => s.putToolSchemas([{ name: 'refund', source: 'test', schema: {}, description: null }], 1);

function withFile(fn: (file: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-stall-'));
    try {
      await fn(join(dir, 'interlock.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

describe('the SQLite store when the database stops answering', () => {
  it(
    'a write lock another process holds: the event loop keeps running, reads answer, the write is refused as unavailable after the wait, then goes through',
    withFile(async (file) => {
      const store = createSqliteStore({ path: file, waitMs: WAIT_MS });
      await store.migrate();
      await schema(store);
      const holder = new DatabaseSync(file);
      holder.exec('BEGIN IMMEDIATE');
      try {
        const write = await loopLag(() => schema(store));
        assert.ok(write.value instanceof Error, 'the write did not go through the lock');
        assert.ok(isStoreUnavailable(write.value), `refused as unavailable (503): ${String(write.value)}`);
        assert.ok(
          write.tookMs >= WAIT_MS - 50 && write.tookMs < WAIT_MS + 1000,
          `after about the wait (${write.tookMs} ms)`,
        );
        assert.ok(write.lagMs < 150, `the event loop kept running (longest stop ${write.lagMs} ms)`);
        // WAL: readers are not blocked by a writer.
        assert.equal((await store.getToolSchema('refund'))?.name, 'refund');
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      await schema(store);
      await store.close();
    }),
  );

  it(
    'on the event loop (`thread: false`) the same lock stops the process for the whole wait: what the worker thread is for',
    withFile(async (file) => {
      const store = createSqliteStore({ path: file, waitMs: WAIT_MS, thread: false });
      await store.migrate();
      const holder = new DatabaseSync(file);
      holder.exec('BEGIN IMMEDIATE');
      try {
        const write = await loopLag(() => schema(store));
        assert.ok(isStoreUnavailable(write.value), String(write.value));
        assert.ok(write.lagMs >= WAIT_MS - 100, `the event loop stood still (${write.lagMs} ms)`);
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      await store.close();
    }),
  );

  it('a stalled disk (fsfreeze): refused after the wait, then at once while stalled; answers again after, with nothing half-written', async (t) => {
    const mount = mountScratch('ext4', 32);
    if (typeof mount === 'string') return t.skip(mount);
    try {
      const store = createSqliteStore({ path: join(mount.dir, 'interlock.db'), waitMs: WAIT_MS });
      await store.migrate();
      mount.freeze(60_000);
      let first: Awaited<ReturnType<typeof loopLag>>;
      let second: Awaited<ReturnType<typeof loopLag>>;
      try {
        first = await loopLag(() =>
          store.insertSession({ idHash: 'h1', reviewerId: 'r1', createdAt: 1, expiresAt: 2 }),
        );
        second = await loopLag(() => store.getSession('h1'));
      } finally {
        await mount.thaw();
      }
      assert.ok(isStoreUnavailable(first.value), String(first.value));
      assert.equal((first.value as { code?: string }).code, 'SQLITE_WAIT_TIMEOUT');
      assert.ok(first.lagMs < 150, `the event loop kept running (longest stop ${first.lagMs} ms)`);
      assert.ok(isStoreUnavailable(second.value), `refused while stalled: ${String(second.value)}`);
      assert.ok(second.tookMs < 100, `at once while the thread is stalled (${second.tookMs} ms)`);
      // Once the disk answers, the store does too; the write under way either landed whole or not at all.
      let session: unknown;
      for (let i = 0; i < 50; i++) {
        try {
          session = await store.getSession('h1');
          break;
        } catch (err) {
          assert.ok(isStoreUnavailable(err), String(err));
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.ok(session === undefined || (session as { reviewerId: string }).reviewerId === 'r1');
      await store.insertSession({ idHash: 'h2', reviewerId: 'r2', createdAt: 1, expiresAt: 2 });
      assert.equal((await store.getSession('h2'))?.reviewerId, 'r2');
      await store.close();
    } finally {
      await mount.unmount();
    }
  });

  it(
    'the worker thread keeps a script alive only while a statement is out: a store left open does not hold the process',
    withFile(async (file) => {
      const script = `
        import { createSqliteStore } from ${JSON.stringify(new URL('./sqlite-store.ts', import.meta.url).href)};
        const store = createSqliteStore({ path: ${JSON.stringify(file)} });
        await store.migrate();
        console.log((await store.getAuditHeads()).length);
      `;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
      assert.ok(Number(out.toString().trim()) > 0, `the script read the chains and exited: ${out.toString()}`);
    }),
  );
});
