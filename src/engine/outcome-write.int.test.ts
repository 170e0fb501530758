/**
 * An execution's outcome written without reading first: while a process holds an execution's claim,
 * nothing else moves its ledger row or its request, so the outcome's transaction sends the row's
 * finish and the request's next version as checked writes (one round trip on PostgreSQL). Should
 * either have moved anyway, nothing of that transaction is written, and the outcome is recorded
 * reading both, as they stand.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import type { PolicyConfig } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import { idempotencyKey } from './execute.ts';

const policy: PolicyConfig = {
  tools: {
    issue_refund: [
      { id: 'small', tier: 'auto', reason: 'refund up to $500' },
      {
        id: 'large',
        tier: 'approve',
        role: 'supervisor',
        reason: 'refund over $500',
        when: ({ args }) => Number(args.amount) > 500,
      },
    ],
  },
};
const alice = { id: 'alice', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`an execution's outcome, written under its claim, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy });
    });
    after(() => backend.destroy());

    /** A paused $800 refund, approved by alice: the request, authorized, and its key. */
    async function approved() {
      const call = { tool: 'issue_refund', args: { orderId: `ORD-${++n}`, customerId: 'c1', amount: 800 } };
      const t = { id: `ow-${backend.name}-${n}`, agent: 'support', agentVersion: '1' };
      const { requests } = await il.pause({
        thread: t,
        checkpoint: { newMessages: [{ role: 'user', content: 'refund please' }], state: {}, schemaVersion: 1 },
        items: [{ call, verdict: await il.gate(call, {}) }],
        proposer: 'agent:support',
      });
      const req = requests[0]!;
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, alice);
      return { call, t, req, key: idempotencyKey(req.id, req.actionHash) };
    }

    /** Round trips (PostgreSQL) or statements (SQLite) of the outcome's transaction: from the tool's end to the answer. */
    const work = () => store.stats.roundTrips ?? store.stats.statements;

    it("writes an approved action's outcome without reading its row or its request: one round trip on PostgreSQL", async () => {
      const { call, t, req, key } = await approved();
      let atEnd = 0;
      const out = await il.executeOnce(
        { key, tool: call.tool, args: call.args, threadId: t.id, requestId: req.id },
        async () => {
          atEnd = work();
          return { refundId: 'rf_1' };
        },
      );
      const spent = work() - atEnd;
      assert.equal(out.status, 'succeeded');
      const after = (await store.getRequest(req.id))!;
      assert.equal(after.status, 'executed');
      // authorized (approve) → executing (claim) → executed (outcome): one version each.
      assert.equal(after.version, req.version + 3);
      assert.equal((await store.getExecution(key))!.status, 'succeeded');
      if (store.stats.roundTrips !== undefined) assert.equal(spent, 1, 'the outcome is one round trip');
      // The row's finish, the request's write, the audit chain's head read, the event and the head's
      // move: no read of the row or the request (a sixth statement).
      else assert.equal(spent, 5, 'the outcome reads neither the ledger row nor the request');
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it("claims an automatic call's key and writes its outcome in one round trip each on PostgreSQL", async () => {
      const call = { tool: 'issue_refund', args: { orderId: `ORD-auto-${++n}`, customerId: 'c1', amount: 50 } };
      let atStart = work();
      let atEnd = 0;
      let claimedFor = 0;
      const out = await il.executeOnce(
        { key: `auto-${n}`, tool: call.tool, args: call.args, auditType: 'auto_executed' },
        async () => {
          atEnd = work();
          claimedFor = atEnd - atStart;
          return { refundId: 'rf_auto' };
        },
      );
      assert.equal(out.status, 'succeeded');
      if (store.stats.roundTrips !== undefined) {
        assert.equal(claimedFor, 1, 'the claim is one round trip');
        assert.equal(work() - atEnd, 1, 'the outcome is one round trip');
      }
      assert.equal((await store.getExecution(`auto-${n}`))!.status, 'succeeded');
      // The same key again: the insert finds it taken, the claim asks, and the outcome is replayed.
      let ran = 0;
      atStart = work();
      const again = await il.executeOnce(
        { key: `auto-${n}`, tool: call.tool, args: call.args, auditType: 'auto_executed' },
        async () => {
          ran++;
          return { refundId: 'rf_again' };
        },
      );
      assert.equal(ran, 0);
      assert.deepEqual(again, {
        status: 'succeeded',
        result: { refundId: 'rf_auto' },
        replayed: true,
        key: `auto-${n}`,
      });
      const events = (await store.listAudit({ limit: 10_000 })).filter((e) => e.payload.idempotencyKey === `auto-${n}`);
      assert.equal(events.length, 1, 'one outcome event for the key');
    });

    it('records the outcome from the request as it stands when the request moved while the call ran', async () => {
      const { call, t, req, key } = await approved();
      let moved = 0;
      const out = await il.executeOnce(
        { key, tool: call.tool, args: call.args, threadId: t.id, requestId: req.id },
        async () => {
          // Something moved the request under the claim (nothing in Interlock does): its version is not
          // the one the claim left, so the outcome must not be written over it.
          await store.unsafeQuery(`UPDATE il_requests SET version = version + 1 WHERE id = $1`, [req.id]);
          moved = (await store.getRequest(req.id))!.version;
          return { refundId: 'rf_2' };
        },
      );
      assert.equal(out.status, 'succeeded');
      const after = (await store.getRequest(req.id))!;
      assert.equal(after.status, 'executed');
      assert.equal(after.version, moved + 1, 'written from the moved row, one version on');
      assert.equal((await store.getExecution(key))!.status, 'succeeded');
      const executed = (await store.listAudit({ requestId: req.id })).filter((e) => e.type === 'executed');
      assert.equal(executed.length, 1, 'one outcome event: the first attempt wrote nothing');
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it('writes nothing when another process took the claim over while the call ran', async () => {
      const { call, t, req, key } = await approved();
      const out = await il.executeOnce(
        { key, tool: call.tool, args: call.args, threadId: t.id, requestId: req.id },
        async () => {
          // This process stalled past its lease and another took the claim over (its own attempt runs on).
          await store.unsafeQuery(`UPDATE il_executions SET lease_owner = 'other', attempts = 2 WHERE key = $1`, [key]);
          return { refundId: 'rf_3' };
        },
      );
      assert.equal(out.status, 'in_progress', "the other process's attempt is the one on record");
      const row = (await store.getExecution(key))!;
      assert.equal(row.status, 'running');
      assert.equal(row.leaseOwner, 'other');
      assert.equal((await store.getRequest(req.id))!.status, 'executing');
      const events = (await store.listAudit({ requestId: req.id })).map((e) => e.type);
      assert.ok(!events.includes('executed'), `no outcome event: ${events.join(', ')}`);
    });

    it("answers from the ledger when another process took an automatic call's claim over while it ran", async () => {
      const key = `auto-taken-${backend.name}`;
      const out = await il.executeOnce(
        { key, tool: 'issue_refund', args: { orderId: 'ORD-T', amount: 20 }, auditType: 'auto_executed' },
        async () => {
          await store.unsafeQuery(`UPDATE il_executions SET lease_owner = 'other', attempts = 2 WHERE key = $1`, [key]);
          return { refundId: 'rf_4' };
        },
      );
      // The checked write failed, and so would the same again: the second time reads the row.
      assert.equal(out.status, 'in_progress');
      const row = (await store.getExecution(key))!;
      assert.equal(row.status, 'running');
      assert.equal(row.leaseOwner, 'other');
    });

    it("commits nothing of an outcome whose audit event cannot be written, though it rode with the thread's read", async () => {
      const key = `audit-fails-${backend.name}`;
      // A write that fails inside the outcome's transaction (a full disk would do the same).
      if (backend.name === 'sqlite')
        await store.unsafeQuery(
          `CREATE TRIGGER il_test_fail BEFORE INSERT ON il_audit WHEN json_extract(NEW.payload, '$.idempotencyKey') = '${key}'
           BEGIN SELECT RAISE(ABORT, 'audit write failed'); END`,
        );
      else {
        await store.unsafeQuery(`CREATE FUNCTION il_test_fail() RETURNS trigger LANGUAGE plpgsql AS $f$
          BEGIN IF NEW.payload::jsonb->>'idempotencyKey' = '${key}' THEN RAISE EXCEPTION 'audit write failed'; END IF; RETURN NEW; END $f$`);
        await store.unsafeQuery(
          `CREATE TRIGGER il_test_fail BEFORE INSERT ON il_audit FOR EACH ROW EXECUTE FUNCTION il_test_fail()`,
        );
      }
      try {
        await assert.rejects(
          il.executeOnce(
            {
              key,
              tool: 'issue_refund',
              args: { orderId: 'ORD-F', amount: 20 },
              threadId: `t-${key}`,
              auditType: 'auto_executed',
            },
            async () => ({ refundId: 'rf_5' }),
            { readThread: true },
          ),
          /audit write failed/,
        );
        const row = (await store.getExecution(key))!;
        assert.equal(row.status, 'running', 'the outcome was not committed without its audit event');
      } finally {
        await store.unsafeQuery('DROP TRIGGER il_test_fail' + (backend.name === 'sqlite' ? '' : ' ON il_audit'));
      }
    });

    /**
     * Two attempts of one call in one process (or in two processes configured with the same `owner`):
     * the first stalled past its lease, the second took the claim over. The claim's fence is the
     * attempt, not the owner's name: the first's outcome, arriving first, is not recorded over the
     * claim it lost, and the attempt holding the claim records its own.
     */
    type Input = Parameters<Interlock['executeOnce']>[0];
    type Outcome = Awaited<ReturnType<Interlock['executeOnce']>>;

    /**
     * Two attempts of `input` under one owner: the first stalls past its lease, a second takes the
     * claim over and runs until the first has ended as `firstEnds` says. Both attempts' answers.
     */
    async function overlapping(input: Input, firstEnds: () => unknown, abandon?: (e: unknown) => boolean) {
      let skew = 0;
      const same = createInterlock({ store, policy, owner: il.owner, now: () => Date.now() + skew });
      let releaseSecond!: () => void;
      const secondMayFinish = new Promise<void>((r) => (releaseSecond = r));
      let secondRunning!: () => void;
      const secondStarted = new Promise<void>((r) => (secondRunning = r));
      let second: Promise<Outcome> | undefined;
      const first = await same
        .executeOnce(
          input,
          async () => {
            skew = 10 * 60_000;
            second = same.executeOnce(input, async () => {
              secondRunning();
              await secondMayFinish;
              return { refundId: 'rf_second' };
            });
            await secondStarted;
            return firstEnds();
          },
          abandon ? { abandonIf: abandon } : {},
        )
        .then(
          (o): Outcome | Error => o,
          (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
        );
      releaseSecond();
      return { first, second: await second! };
    }

    for (const kind of ['approved', 'automatic'] as const) {
      it(`records the ${kind} call's outcome of the attempt that holds the claim, when the same owner took it over`, async () => {
        const a = kind === 'approved' ? await approved() : undefined;
        const key = a?.key ?? `auto-same-owner-${backend.name}`;
        const input = a
          ? { key, tool: a.call.tool, args: a.call.args, threadId: a.t.id, requestId: a.req.id }
          : { key, tool: 'issue_refund', args: { orderId: 'ORD-S', amount: 20 }, auditType: 'auto_executed' as const };
        const { first, second: out } = await overlapping(input, () => ({ refundId: 'rf_first' }));
        if (first instanceof Error) throw first;
        assert.notEqual(
          first.status === 'succeeded' && !first.replayed,
          true,
          'the attempt that lost its claim recorded nothing',
        );
        assert.equal(out.status, 'succeeded');
        assert.equal(
          out.status === 'succeeded' && out.replayed,
          false,
          'the attempt holding the claim recorded its own outcome',
        );
        const row = (await store.getExecution(key))!;
        assert.equal(row.status, 'succeeded');
        assert.deepEqual(row.result, { refundId: 'rf_second' });
        assert.equal(row.attempts, 2);
        if (a) {
          assert.equal((await store.getRequest(a.req.id))!.status, 'executed');
          const executed = (await store.listAudit({ requestId: a.req.id })).filter((e) => e.type === 'executed');
          assert.equal(executed.length, 1, 'one outcome event');
        }
      });
    }

    it('does not abandon the claim another attempt of the same owner took over when the lapsed one stops', async () => {
      class Stop extends Error {}
      const input = {
        key: `abandon-same-owner-${backend.name}`,
        tool: 'issue_refund',
        args: { orderId: 'ORD-AB', amount: 20 },
        auditType: 'auto_executed' as const,
      };
      // The lapsed attempt stops before any side effect, as an interrupt does.
      const { first, second: out } = await overlapping(
        input,
        () => {
          throw new Stop('interrupted before any side effect');
        },
        (e) => e instanceof Stop,
      );
      assert.ok(first instanceof Stop, 'the lapsed attempt rethrew its interrupt');
      assert.equal(out.status, 'succeeded', 'the attempt holding the claim was not marked abandoned under it');
      const row = (await store.getExecution(input.key))!;
      assert.equal(row.status, 'succeeded');
      assert.deepEqual(row.result, { refundId: 'rf_second' });
    });
  });
}
