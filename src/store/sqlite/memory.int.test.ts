/**
 * Where an SQLite store's connection runs: a file's on the store's worker thread, an in-memory
 * database's on the event loop (no disk to stall, no other process to hold its lock), unless asked.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from './sqlite-store.ts';
import type { Store } from '../types.ts';

describe('where an SQLite store runs its statements', () => {
  const dir = mkdtempSync(join(tmpdir(), 'il-where-'));
  const stores: Store[] = [];
  after(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const hopsOf = async (store: Store) => {
    stores.push(store);
    await store.migrate();
    await store.getThread('nobody');
    return store.stats.hops ?? 0;
  };

  it('an in-memory database on the event loop: no message to a thread', async () => {
    assert.equal(await hopsOf(createSqliteStore({ path: ':memory:' })), 0);
  });

  it('a file on the worker thread; an in-memory database there too when asked', async () => {
    assert.ok((await hopsOf(createSqliteStore({ path: join(dir, 'a.db') }))) > 0);
    assert.ok((await hopsOf(createSqliteStore({ path: ':memory:', thread: true }))) > 0);
  });
});
