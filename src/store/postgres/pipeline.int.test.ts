/**
 * A pipelined transaction whose statement failed is never reported as committed — even when the
 * caller asked for that statement's answer and let the COMMIT go before awaiting it (an outcome's
 * transaction reads the thread that way, so it stays one round trip).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../../testing/backends.ts';
import { pipelinedTx, type PgStats } from './pipeline.ts';

describe('a pipelined PostgreSQL transaction', () => {
  let client: pg.Client;
  const table = `il_pipeline_test_${process.pid}`;
  const stats = (): PgStats => ({ transactions: 0, statements: 0, roundTrips: 0 });
  const plain = (text: string, values: readonly unknown[]) => ({ text, values: [...values] });

  before(async () => {
    client = new pg.Client({ connectionString: TEST_DATABASE_URL, pipeline: true });
    await client.connect();
    await client.query(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`);
  });
  after(async () => {
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.end();
  });

  it('fails at COMMIT, writing nothing, when a read whose answer nobody awaited yet failed', async () => {
    const tx = pipelinedTx(client, stats(), plain);
    await tx.exec.send(`INSERT INTO ${table} (id) VALUES ($1)`, [1]);
    // Asked for, not awaited before the COMMIT: division by zero fails it on the server.
    const reading = tx.exec.all(`SELECT 1 / (id - 1) AS x FROM ${table} WHERE id = $1`, [1]);
    reading.catch(() => undefined);
    await assert.rejects(tx.commit(), /division by zero/);
    await assert.rejects(reading, /division by zero/);
    await tx.rollback();
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    assert.equal(rows[0]!.n, 0, 'nothing of the transaction was written');
  });

  it('commits, in one round trip, a read asked for with its writes and the COMMIT', async () => {
    const s = stats();
    const tx = pipelinedTx(client, s, plain);
    await tx.exec.send(`INSERT INTO ${table} (id) VALUES ($1)`, [2]);
    const reading = tx.exec.all(`SELECT id FROM ${table} WHERE id = $1`, [2]);
    await tx.commit();
    assert.deepEqual(await reading, [{ id: 2 }]);
    assert.equal(s.roundTrips, 1);
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id = 2`);
    assert.equal(rows[0]!.n, 1);
  });
});
