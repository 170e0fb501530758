import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sqliteBackend } from '../testing/backends.ts';
import { createApp } from './app.ts';
import { serve } from './serve.ts';
import { storeFault } from './errors.ts';
import { createStorageState } from './storage-state.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';

type ErrorBody = { error: { code: string; message: string } };

describe('a full disk on SQLite: coded 503 storage_full, /readyz 503, writes resume by themselves', () => {
  let f: ServerFixture;
  before(async () => {
    f = await startServerFixture(sqliteBackend());
  });
  after(() => f.close());

  /** Cap the database at its current size: SQLite itself then answers SQLITE_FULL to a write that needs a page. */
  async function fillDisk(): Promise<void> {
    const [row] = (await f.store.unsafeQuery('PRAGMA page_count')) as Array<{ page_count: number }>;
    await f.store.unsafeQuery(`PRAGMA max_page_count = ${row!.page_count}`);
  }
  const freeSpace = () => f.store.unsafeQuery('PRAGMA max_page_count = 1073741823');

  it('refuses a decision with 503 storage_full and Retry-After, reports it on /readyz, and recovers when space returns', async () => {
    const req = await f.pauseRefund(800);
    assert.equal((await f.call('/readyz', null)).status, 200);
    await fillDisk();
    // A long message: its audit event needs pages the database may no longer grow.
    const decision = { type: 'reject', ...guard(req), message: 'x'.repeat(9000) };
    const refused = await f.call<ErrorBody>(`/api/v1/approvals/${req.id}/decision`, 'bob', { body: decision });
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'storage_full');
    assert.match(refused.body.error.message, /free space on the volume that holds the database/);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal(f.logged.filter((l) => l.message === 'storage full').length, 1, 'operators see it in the log');

    const ready = await f.call<ErrorBody>('/readyz', null);
    assert.equal(ready.status, 503);
    assert.equal(ready.body.error.code, 'storage_full');
    assert.equal((await f.call('/healthz', null)).status, 200, 'the process itself is alive');
    assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending', 'nothing was written');

    await freeSpace();
    const landed = await f.call<{ outcome: string }>(`/api/v1/approvals/${req.id}/decision`, 'bob', {
      body: decision,
    });
    assert.equal(landed.status, 200, JSON.stringify(landed.body));
    assert.equal(landed.body.outcome, 'rejected');
    assert.equal((await f.call('/readyz', null)).status, 200, 'a write that succeeded clears it');
    const audit = await f.interlock.verifyAudit();
    assert.equal(audit.ok, true);
  });
});

describe('storage faults are told apart from other failures', () => {
  const pg = (code: string) => Object.assign(new Error(`pg ${code}`), { code });
  const sqlite = (errcode: number) => Object.assign(new Error('sqlite'), { code: 'ERR_SQLITE_ERROR', errcode });

  it('PostgreSQL disk_full (53100) and io_error (58030), SQLITE_FULL and SQLITE_IOERR* are storage_full', () => {
    for (const err of [pg('53100'), pg('58030'), sqlite(13), sqlite(10), sqlite(10 | (3 << 8)), sqlite(10 | (4 << 8))])
      assert.equal(storeFault(err), 'storage_full', err.message);
    assert.equal(storeFault(new Error('wrapped', { cause: pg('53100') })), 'storage_full', 'found through causes');
  });

  it('unreachable, restarting, busy and past their deadline are store_unavailable; other errors are neither', () => {
    for (const err of [pg('57P01'), pg('08006'), pg('57014'), pg('25P03'), sqlite(5), new Error('Query read timeout')])
      assert.equal(storeFault(err), 'store_unavailable', err.message);
    for (const err of [pg('23505'), sqlite(19), new Error('boom')]) assert.equal(storeFault(err), undefined);
  });

  it('a PostgreSQL disk_full answers 503 storage_full over HTTP, and /readyz says so until a write commits', async () => {
    const f = await startServerFixture(sqliteBackend());
    try {
      const app = createApp({
        interlock: { ...f.interlock, listRequests: () => Promise.reject(pg('53100')) },
        logger: { error: () => undefined },
      });
      const server = await serve({ app, port: 0 });
      try {
        const r = await fetch(`${server.url}/api/v1/approvals`, {
          headers: { authorization: `Bearer ${f.tokens.olga}` },
        });
        const b = (await r.json()) as ErrorBody;
        assert.equal(r.status, 503);
        assert.equal(b.error.code, 'storage_full');
        assert.doesNotMatch(JSON.stringify(b), /53100/);
        assert.equal((await fetch(`${server.url}/readyz`)).status, 503);
        // Any commit announces itself as an engine event: the storage took a write.
        await f.pauseRefund(700);
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      } finally {
        await server.close();
      }
    } finally {
      await f.close();
    }
  });

  it('the mark lapses after its hold without a write (a replica out of rotation is let back in to find out)', () => {
    let t = 0;
    const s = createStorageState(30_000, () => t);
    assert.equal(s.full, false);
    s.markFull();
    assert.equal(s.full, true);
    t += 29_999;
    assert.equal(s.full, true);
    t += 1;
    assert.equal(s.full, false);
    s.markFull();
    s.markWritten();
    assert.equal(s.full, false);
  });
});
