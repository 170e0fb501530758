/**
 * `executeOnce` with `unclaimed`: an automatic call whose key is its own runs without a claim before
 * it, and is recorded after it — ledger row and audit event — before its caller hears back, in one
 * commit shared with the other such calls that finished meanwhile.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { InterlockError, type PolicyConfig } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import { createInterlock, type Interlock } from './interlock.ts';

const policy: PolicyConfig = { tools: { echo: [{ id: 'echo', tier: 'auto', reason: 'read-only' }] } };

for (const backend of allBackends()) {
  describe(`executeOnce, unclaimed, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let n = 0;
    const input = (threadId: string, extra: Record<string, unknown> = {}) => ({
      key: `${threadId}:mcp_${++n}`,
      tool: 'echo',
      args: { message: `m${n}` },
      threadId,
      auditType: 'auto_executed' as const,
      auditPayload: { tier: 'auto', ruleId: 'echo', reason: 'read-only' },
      ...extra,
    });

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy });
    });
    after(() => backend.destroy());

    it('runs once, and the ledger row and audit event are committed before the caller hears back', async () => {
      const t = `un-${backend.name}-1`;
      const i = input(t);
      let runs = 0;
      let keySeen = '';
      const out = await il.executeOnce(
        i,
        async (run) => {
          runs++;
          keySeen = run.idempotencyKey;
          // Nothing is claimed before the call runs: its key is its own, no retry can name it.
          assert.equal(await store.getExecution(i.key), undefined);
          return { echoed: i.args.message };
        },
        { unclaimed: true },
      );
      assert.deepEqual(out, { status: 'succeeded', result: { echoed: i.args.message }, replayed: false, key: i.key });
      assert.equal(runs, 1);
      assert.equal(keySeen, i.key, 'the call gets its key, for an upstream that dedupes');
      const row = await store.getExecution(i.key);
      assert.equal(row?.status, 'succeeded');
      assert.equal(row?.requestId, null);
      assert.deepEqual(row?.result, { echoed: i.args.message });
      const events = await store.listAudit({ threadId: t });
      assert.deepEqual(
        events.map((e) => [e.type, e.payload.idempotencyKey, e.payload.tool]),
        [['auto_executed', i.key, 'echo']],
      );
      // Counted like every other call that ran without a person.
      const counted = await store.countAutoCalls(0, Date.now() + 1000);
      assert.ok(counted.some((c) => c.tool === 'echo' && c.tier === 'auto' && c.count >= 1));
    });

    it('records a failure as failed, with its error, and audits it', async () => {
      const t = `un-${backend.name}-2`;
      const i = input(t);
      const out = await il.executeOnce(
        i,
        async () => {
          throw new Error('upstream down');
        },
        { unclaimed: true },
      );
      assert.equal(out.status, 'failed');
      assert.equal(out.status === 'failed' && out.error, 'upstream down');
      const row = await store.getExecution(i.key);
      assert.equal(row?.status, 'failed');
      assert.equal(row?.error, 'upstream down');
      const events = await store.listAudit({ threadId: t });
      assert.deepEqual(
        events.map((e) => [e.type, e.payload.error]),
        [['failed', 'upstream down']],
      );
    });

    it('records concurrent calls in fewer commits than calls, every one of them, with a chain that verifies', async () => {
      const t = `un-${backend.name}-3`;
      const inputs = Array.from({ length: 16 }, () => input(t));
      const before = store.stats.transactions;
      const outs = await Promise.all(
        inputs.map((i) => il.executeOnce(i, async () => ({ ok: i.key }), { unclaimed: true })),
      );
      const transactions = store.stats.transactions - before;
      assert.ok(
        outs.every((o) => o.status === 'succeeded'),
        'every call ran',
      );
      // The first call's commit starts at once; the 15 that finish while it runs share the next one.
      assert.ok(transactions <= 2, `16 calls recorded in ${transactions} transactions`);
      for (const i of inputs) assert.equal((await store.getExecution(i.key))?.status, 'succeeded');
      const events = await store.listAudit({ threadId: t });
      assert.equal(events.filter((e) => e.type === 'auto_executed').length, 16);
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it('is refused for an approved action: that runs only under its claim', async () => {
      let ran = false;
      await assert.rejects(
        il.executeOnce(
          input(`un-${backend.name}-4`, { requestId: 'req_x' }),
          async () => {
            ran = true;
          },
          { unclaimed: true },
        ),
        (err: unknown) => err instanceof InterlockError && err.code === 'invalid_input' && /claim/.test(err.message),
      );
      assert.equal(ran, false, 'nothing ran');
    });

    it('keeps the claim for a notify call (its job commits with the outcome)', async () => {
      const t = `un-${backend.name}-5`;
      const i = input(t, { notifyRole: 'ops', auditPayload: { tier: 'notify' } });
      let claimedBeforeRun = false;
      const out = await il.executeOnce(
        i,
        async () => {
          claimedBeforeRun = (await store.getExecution(i.key))?.status === 'running';
          return 1;
        },
        { unclaimed: true },
      );
      assert.equal(out.status, 'succeeded');
      assert.equal(claimedBeforeRun, true);
      assert.equal((await store.listJobs({ threadId: t, kind: 'notify' })).length, 1);
    });
  });
}
