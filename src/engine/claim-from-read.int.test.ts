/**
 * An approved call's claim written from the request as the engine read it (`Interlock.callOutcome`,
 * `requestOutcome`; `ExecuteOptions.request`): the request's next version is checked against the one
 * read and the claim is a checked insert, so the claim's transaction reads nothing (one round trip on
 * PostgreSQL). A request that moved since, or an object the engine did not hand out, claims reading.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { actionHash } from '../core/index.ts';
import { refundPolicy } from '../../test/support/adapter-policy.ts';
import type { Store } from '../store/types.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import { idempotencyKey } from './execute.ts';

const policy = refundPolicy;
const alice = { id: 'alice', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`an approved call claimed from the request the engine read, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy });
    });
    after(() => backend.destroy());

    /** A paused $800 refund approved by alice, and the call's outcome as the engine reads it. */
    async function approved() {
      const call = { tool: 'issue_refund', args: { orderId: `ORD-${++n}`, customerId: 'c1', amount: 800 } };
      const t = { id: `cr-${backend.name}-${n}`, agent: 'support', agentVersion: '1' };
      const toolCallId = `call_${n}`;
      const { requests } = await il.pause({
        thread: t,
        checkpoint: { newMessages: [{ role: 'user', content: 'refund please' }], state: {}, schemaVersion: 1 },
        items: [{ call, toolCallId, verdict: await il.gate(call, {}) }],
        proposer: 'agent:support',
      });
      const req = requests[0]!;
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, alice);
      const o = await il.callOutcome(t.id, toolCallId, actionHash(call.tool, call.args));
      assert.equal(o?.state, 'approved');
      const input = {
        key: idempotencyKey(req.id, req.actionHash),
        tool: call.tool,
        args: call.args,
        threadId: t.id,
        requestId: req.id,
      };
      return { call, req, input, read: o.request };
    }

    /** Round trips (PostgreSQL) or statements (SQLite) so far. */
    const work = () => store.stats.roundTrips ?? store.stats.statements;

    /** Execute, counting the claim's work: from the call to the tool's start. */
    async function claimCost(a: Awaited<ReturnType<typeof approved>>, request?: unknown) {
      const before = work();
      let claim = -1;
      const out = await il.executeOnce(
        a.input,
        async () => {
          claim = work() - before;
          return { refundId: `rf_${a.req.id}` };
        },
        request ? { request: request as typeof a.read } : {},
      );
      assert.equal(out.status, 'succeeded');
      return claim;
    }

    it('reads nothing in the claim: fewer round trips than a claim that reads, and the request moves as before', async () => {
      const reading = await claimCost(await approved());
      const a = await approved();
      const fromRead = await claimCost(a, a.read);
      if (backend.name === 'postgres') {
        assert.equal(fromRead, 1, 'the claim, its checked writes and its COMMIT travel together');
        assert.equal(reading, 2, 'a claim that reads waits for the request first');
      } else assert.ok(fromRead < reading, `${fromRead} statements against ${reading}`);
      const stored = (await store.getRequest(a.req.id))!;
      assert.equal(stored.status, 'executed');
      assert.equal(stored.version, a.read.version + 2, 'executing, then executed');
      const row = (await store.getExecution(a.input.key))!;
      assert.equal(row.status, 'succeeded');
      assert.equal(row.attempts, 1);
      const events = (await store.listAudit({ requestId: a.req.id })).map((e) => e.type);
      assert.equal(events.filter((e) => e === 'executed').length, 1);
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it('claims reading when given an object the engine did not hand out, or one it handed out already', async () => {
      const a = await approved();
      const reading = await claimCost(await approved());
      assert.equal(await claimCost(a, { ...a.read }), reading, 'a copy is not the engine’s');
      const b = await approved();
      // Another action under another key, handed the request: refused, and the engine's copy is used up by it.
      await assert.rejects(
        il.executeOnce(
          { ...b.input, key: `${b.input.key}:other`, args: { ...b.input.args, amount: 900 } },
          () => Promise.resolve(null),
          { request: b.read },
        ),
        (e: Error & { code?: string }) => e.code === 'action_hash_mismatch',
      );
      assert.equal(await claimCost(b, b.read), reading);
    });

    it("writes the engine's copy, never the caller's changes to the object it was handed", async () => {
      const a = await approved();
      const asRead = structuredClone(a.read);
      // A caller redacts the request for a log, or rewrites it.
      Object.assign(a.read, {
        args: { orderId: 'X', amount: 1 },
        version: 99,
        approvalsReceived: 0,
        status: 'pending',
      });
      await claimCost(a, a.read);
      const stored = (await store.getRequest(a.req.id))!;
      assert.deepEqual(stored.args, asRead.args);
      assert.equal(stored.version, asRead.version + 2);
      assert.deepEqual(stored.resolution, asRead.resolution);
      assert.equal(stored.approvalsReceived, asRead.approvalsReceived);
      assert.equal(stored.status, 'executed');
    });

    it("writes the engine's copy when the caller changed only fields the version check does not see", async () => {
      const b = await approved();
      const fast = await claimCost(b, b.read);
      const a = await approved();
      const asRead = structuredClone(a.read);
      a.read.args.amount = 1;
      Object.assign(a.read, { resolution: { type: 'approve', by: 'mallory', at: 0 } });
      assert.equal(await claimCost(a, a.read), fast, 'still the claim that reads nothing');
      const stored = (await store.getRequest(a.req.id))!;
      assert.deepEqual(stored.args, asRead.args);
      assert.deepEqual(stored.resolution, asRead.resolution);
      assert.equal(stored.status, 'executed');
    });

    it('replays the recorded outcome when the call ran elsewhere after the read (nothing runs twice)', async () => {
      const a = await approved();
      const other = createInterlock({ store, policy, owner: 'other-process' });
      const first = await other.executeOnce(a.input, async () => ({ refundId: 'rf_elsewhere' }));
      assert.equal(first.status, 'succeeded');
      let ran = false;
      const out = await il.executeOnce(
        a.input,
        async () => {
          ran = true;
          return { refundId: 'rf_again' };
        },
        { request: a.read },
      );
      assert.equal(ran, false);
      assert.deepEqual(out, {
        status: 'succeeded',
        result: { refundId: 'rf_elsewhere' },
        replayed: true,
        key: a.input.key,
      });
    });

    it('refuses, running nothing, when the request was cancelled after the read', async () => {
      const a = await approved();
      await il.threads.abort(a.input.threadId, 'operator');
      let ran = false;
      await assert.rejects(
        il.executeOnce(
          a.input,
          async () => {
            ran = true;
          },
          { request: a.read },
        ),
        (e: Error & { code?: string }) => e.code === 'not_authorized',
      );
      assert.equal(ran, false);
      assert.equal(await store.getExecution(a.input.key), undefined, 'no claim was left');
      assert.equal((await store.getRequest(a.req.id))!.status, 'cancelled');
    });
  });
}
