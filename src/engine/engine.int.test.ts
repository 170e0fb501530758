import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import { InterlockError, type PolicyConfig, type Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';

const refundSchema = z.object({ orderId: z.string(), customerId: z.string(), amount: z.number().positive() }).strict();

const policy: PolicyConfig = {
  tools: {
    issue_refund: {
      aggregates: { refunds24h: { fn: 'sum', field: 'amount', groupBy: 'customerId', window: '24h' } },
      rules: [
        { id: 'small', tier: 'auto', reason: 'refund up to $500' },
        {
          id: 'large',
          tier: 'approve',
          role: 'supervisor',
          timeout: '30m',
          reason: 'refund over $500',
          when: ({ args }) => Number(args.amount) > 500,
        },
        {
          id: 'huge',
          tier: 'escalate',
          role: 'supervisor',
          approvals: 2,
          timeout: '30m',
          reason: 'refund over $2,000 needs two supervisors',
          when: ({ args }) => Number(args.amount) > 2000,
        },
        {
          id: 'velocity',
          tier: 'escalate',
          role: 'supervisor',
          timeout: '30m',
          reason: 'refunds to this customer exceed $100 in 24 h',
          when: ({ args, ctx }) => (ctx.aggregates.refunds24h ?? 0) + Number(args.amount) > 100,
        },
      ],
    },
    cancel_subscription: [
      {
        id: 'always',
        tier: 'approve',
        role: 'retention_lead',
        timeout: '15m',
        onTimeout: 'approve',
        reason: 'cancellations need review',
      },
    ],
    send_contract: [
      {
        id: 'contract',
        tier: 'approve',
        role: 'legal',
        timeout: '24h',
        onTimeout: 'escalate',
        escalateTo: { role: 'general_counsel', timeout: '24h' },
        reason: 'contracts need legal',
      },
    ],
    deploy: [
      { id: 'deploy', tier: 'approve', role: 'sre', timeout: '10m', onTimeout: 'abort', reason: 'deploys need an SRE' },
    ],
    delete_customer: [{ id: 'never', tier: 'block', reason: 'deleting customers is not allowed' }],
  },
};

const alice: Reviewer = { id: 'alice', roles: ['supervisor'] };
const bob: Reviewer = { id: 'bob', roles: ['supervisor'] };
const carol: Reviewer = { id: 'carol', roles: ['finance'] };

for (const backend of allBackends()) {
  describe(`engine on ${backend.name}`, () => {
    let store: Store;
    const clock = manualClock();
    let il: Interlock;
    let n = 0;
    const thread = () => ({ id: `t-${backend.name}-${++n}`, agent: 'support', agentVersion: '1' });

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy, tools: { issue_refund: { schema: refundSchema } }, now: clock.now });
    });
    after(() => backend.destroy());

    async function pauseRefund(amount: number, customerId = 'c1') {
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', customerId, amount } };
      const verdict = await il.gate(call, {});
      const t = thread();
      const { requests } = await il.pause({
        thread: t,
        checkpoint: {
          newMessages: [{ role: 'user', content: 'refund please' }],
          state: { pending: [call] },
          schemaVersion: 1,
        },
        items: [{ call, verdict, evidence: { customerMessage: 'mail me at jane.doe@example.com' } }],
        proposer: 'agent:support',
      });
      return { t, req: requests[0]! };
    }

    async function code(p: Promise<unknown>): Promise<string> {
      try {
        await p;
      } catch (e) {
        assert.ok(e instanceof InterlockError, `expected an InterlockError, got ${String(e)}`);
        return e.code;
      }
      return 'no error';
    }

    it('blocks tools without policy and gates by amount', async () => {
      assert.equal((await il.gate({ tool: 'wire_money', args: {} })).tier, 'block');
      assert.equal((await il.gate({ tool: 'delete_customer', args: {} })).tier, 'block');
      assert.equal(
        (await il.gate({ tool: 'issue_refund', args: { orderId: 'o', customerId: 'new1', amount: 40 } })).tier,
        'auto',
      );
      assert.equal(
        (await il.gate({ tool: 'issue_refund', args: { orderId: 'o', customerId: 'new2', amount: 850 } })).tier,
        'escalate',
        'velocity: $850 alone exceeds $100/24h',
      );
    });

    it('escalates the third $49 refund in an hour (aggregate over the ledger)', async () => {
      const run = async () => {
        const call = { tool: 'issue_refund', args: { orderId: 'o', customerId: 'vel', amount: 49 } };
        const v = await il.gate(call);
        if (v.tier !== 'auto') return v.tier;
        const out = await il.executeOnce(
          { key: `k-${Math.random()}`, tool: call.tool, args: call.args, auditType: 'auto_executed' },
          async () => ({ ok: true }),
        );
        assert.equal(out.status, 'succeeded');
        clock.advance(20 * 60_000);
        return v.tier;
      };
      assert.deepEqual([await run(), await run(), await run()], ['auto', 'auto', 'escalate']);
      // Another customer is unaffected.
      assert.equal(
        (await il.gate({ tool: 'issue_refund', args: { orderId: 'o', customerId: 'other', amount: 49 } })).tier,
        'auto',
      );
      // After the window, the sum falls out of range.
      clock.advance(25 * 3_600_000);
      assert.equal(
        (await il.gate({ tool: 'issue_refund', args: { orderId: 'o', customerId: 'vel', amount: 49 } })).tier,
        'auto',
      );
    });

    it('pauses durably in one transaction with redacted evidence', async () => {
      const before = store.stats.transactions;
      const { t, req } = await pauseRefund(800);
      assert.equal(store.stats.transactions - before, 1, 'pause is one transaction');
      assert.equal(req.status, 'pending');
      assert.equal(req.role, 'supervisor');
      assert.deepEqual(req.evidence, { customerMessage: 'mail me at j***@example.com' });
      const cp = await store.getLatestCheckpoint(t.id);
      assert.equal(cp?.messageCount, 1);
      assert.equal((await store.getThread(t.id))?.status, 'interrupted');
      assert.equal((await store.listJobs({ requestId: req.id, kind: 'notify' })).length, 1);
      assert.deepEqual(
        (await store.listAudit({ requestId: req.id })).map((e) => e.type),
        ['interrupted'],
      );
    });

    it('refuses stale versions, changed hashes, wrong roles, self-approval, and resolved requests with distinct codes', async () => {
      const { req } = await pauseRefund(800);
      const ok = { type: 'approve' as const, expectedVersion: req.version, actionHash: req.actionHash };
      assert.equal(await code(il.decide(req.id, { ...ok, expectedVersion: 7 }, alice)), 'stale_version');
      assert.equal(await code(il.decide(req.id, { ...ok, actionHash: 'f'.repeat(64) }, alice)), 'action_hash_mismatch');
      assert.equal(await code(il.decide(req.id, ok, carol)), 'forbidden_role');
      assert.equal(await code(il.decide(req.id, ok, { id: 'agent:support', roles: ['supervisor'] })), 'self_approval');
      assert.equal(await code(il.decide('apr_nope', ok, alice)), 'approval_request_not_found');
      assert.equal((await il.getRequestOrThrow(req.id)).version, req.version, 'refusals changed nothing');
      const refused = (await store.listAudit({ requestId: req.id })).filter((e) => e.type === 'refused');
      assert.equal(refused.length, 2, 'security refusals are audited');
      const r = await il.decide(req.id, ok, alice);
      assert.equal(r.outcome, 'authorized');
      assert.equal(
        await code(il.decide(req.id, { ...ok, expectedVersion: r.request.version }, bob)),
        'already_resolved',
      );
      const jobs = await store.listJobs({ requestId: req.id, kind: 'resume' });
      assert.equal(jobs.length, 1, 'decision queued exactly one resume job');
    });

    it('refuses an expired request with request_expired', async () => {
      const { req } = await pauseRefund(800);
      clock.advance(31 * 60_000);
      assert.equal(
        await code(il.decide(req.id, { type: 'approve', expectedVersion: 1, actionHash: req.actionHash }, alice)),
        'request_expired',
      );
    });

    it('counts each reviewer once toward a quorum', async () => {
      const { req } = await pauseRefund(2500, 'q1');
      assert.equal(req.tier, 'escalate');
      assert.equal(req.approvalsRequired, 2);
      const first = await il.decide(req.id, { type: 'approve', expectedVersion: 1, actionHash: req.actionHash }, alice);
      assert.equal(first.outcome, 'pending');
      assert.equal(
        await code(il.decide(req.id, { type: 'approve', expectedVersion: 2, actionHash: req.actionHash }, alice)),
        'duplicate_reviewer',
      );
      const second = await il.decide(req.id, { type: 'approve', expectedVersion: 2, actionHash: req.actionHash }, bob);
      assert.equal(second.outcome, 'authorized');
      assert.equal(second.request.approvalsReceived, 2);
    });

    it('reject and respond resolve with the message for the agent', async () => {
      const a = await pauseRefund(800);
      const r1 = await il.decide(
        a.req.id,
        { type: 'reject', expectedVersion: 1, actionHash: a.req.actionHash, message: 'offer store credit' },
        alice,
      );
      assert.equal(r1.request.status, 'rejected');
      assert.equal(r1.request.resolution?.message, 'offer store credit');
      const b = await pauseRefund(800);
      const r2 = await il.decide(
        b.req.id,
        {
          type: 'respond',
          expectedVersion: 1,
          actionHash: b.req.actionHash,
          message: 'refund already issued manually',
        },
        alice,
      );
      assert.equal(r2.request.status, 'responded');
      assert.equal(
        await code(
          il.decide((await pauseRefund(800)).req.id, { type: 'respond', expectedVersion: 1, actionHash: 'x' }, alice),
        ),
        'action_hash_mismatch',
      );
    });

    it('validates edits per field and lets an edit keep or raise the tier, never lower it', async () => {
      const { req } = await pauseRefund(800, 'e1');
      const bad = il.decide(
        req.id,
        {
          type: 'edit',
          expectedVersion: 1,
          actionHash: req.actionHash,
          args: { orderId: 'ORD-1', customerId: 'e1', amount: -5, extra: 1 },
        },
        alice,
      );
      await assert.rejects(bad, (e: InterlockError) => {
        assert.equal(e.code, 'invalid_input');
        const issues = e.details.issues as Array<{ path: string }>;
        assert.ok(issues.some((i) => i.path === 'args.amount'));
        return true;
      });
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending', 'invalid edit changed nothing');
      // Lowering the amount below the auto threshold keeps the request's tier: the edit authorizes the new args.
      const lowered = await il.decide(
        req.id,
        {
          type: 'edit',
          expectedVersion: 1,
          actionHash: req.actionHash,
          args: { orderId: 'ORD-1', customerId: 'e1', amount: 40 },
        },
        alice,
      );
      assert.equal(lowered.outcome, 'authorized');
      assert.equal(lowered.request.args.amount, 40);
      assert.notEqual(lowered.request.actionHash, req.actionHash);
      assert.deepEqual(lowered.request.resolution?.originalArgs, req.args);

      const { req: r2 } = await pauseRefund(800, 'e2');
      assert.equal(r2.tier, 'escalate');
      const raised = await il.decide(
        r2.id,
        {
          type: 'edit',
          expectedVersion: 1,
          actionHash: r2.actionHash,
          args: { orderId: 'ORD-1', customerId: 'e2', amount: 3000 },
        },
        alice,
      );
      assert.equal(raised.outcome, 'superseded');
      assert.ok(raised.newRequest);
      assert.equal(raised.newRequest.approvalsRequired, 2, 'raised to the two-approval rule');
      assert.equal(raised.newRequest.parentId, r2.id);
      assert.equal((await il.getRequestOrThrow(r2.id)).status, 'superseded');
      assert.equal(
        (await store.listJobs({ requestId: r2.id, kind: 'resume' })).length,
        0,
        'a superseded edit does not resume the thread',
      );
    });

    it('"approve and trust" lets later calls of the rule run without asking', async () => {
      const call = { tool: 'cancel_subscription', args: { subscriptionId: 'SUB-7' } };
      const t = thread();
      const v = await il.gate(call, { threadId: t.id });
      assert.equal(v.tier, 'approve');
      const { requests } = await il.pause({ thread: t, items: [{ call, verdict: v }], proposer: 'agent:support' });
      const r = requests[0]!;
      await il.decide(
        r.id,
        { type: 'approve', expectedVersion: 1, actionHash: r.actionHash, trust: true },
        { id: 'rita', roles: ['retention_lead'] },
      );
      const later = await il.gate(
        { tool: 'cancel_subscription', args: { subscriptionId: 'SUB-8' } },
        { threadId: t.id },
      );
      assert.equal(later.tier, 'auto');
      assert.equal(later.trustedBy?.reviewer, 'rita');
      assert.equal((await il.gate(call, { threadId: 'another-thread' })).tier, 'approve', 'trust is per thread');
      assert.ok((await store.listAudit({ requestId: r.id })).some((e) => e.type === 'trusted'));
    });

    it('applies each timeout default once', async () => {
      const mk = async (tool: string) => {
        const call = { tool, args: { id: 'x' } };
        const t = thread();
        const { requests } = await il.pause({
          thread: t,
          items: [{ call, verdict: await il.gate(call) }],
          proposer: 'agent:support',
        });
        return requests[0]!;
      };
      await il.expireDue(); // clear anything earlier tests left to expire
      const rej = (await pauseRefund(800, 'to1')).req;
      const app = await mk('cancel_subscription');
      const esc = await mk('send_contract');
      const abo = await mk('deploy');
      clock.advance(25 * 3_600_000);
      const expired = await il.expireDue();
      const byId = new Map(expired.map((r) => [r.id, r]));
      assert.equal(byId.get(rej.id)?.status, 'expired');
      assert.equal(byId.get(app.id)?.status, 'authorized');
      assert.equal(byId.get(esc.id)?.status, 'superseded');
      assert.equal(byId.get(abo.id)?.status, 'expired');
      const escalated = await il.getRequestOrThrow(byId.get(esc.id)!.supersededBy!);
      assert.equal(escalated.role, 'general_counsel');
      assert.equal(escalated.status, 'pending');
      assert.equal((await store.getThread(abo.threadId))?.status, 'aborted');
      assert.equal((await store.listJobs({ requestId: rej.id, kind: 'resume' })).length, 1);
      assert.equal((await store.listJobs({ requestId: app.id, kind: 'resume' })).length, 1);
      assert.deepEqual(await il.expireDue(), [], 'a second sweep finds nothing');
    });

    it('executes an authorized action once, and re-claims a crashed claim after its lease with the same key', async () => {
      const { req } = await pauseRefund(800, 'x1');
      assert.equal(
        await code(
          il.executeOnce(
            { key: `${req.id}:${req.actionHash}`, tool: req.tool, args: req.args, requestId: req.id },
            async () => 1,
          ),
        ),
        'not_authorized',
      );
      // A refused execution leaves no claim behind (the claim is asked for with the request and rolled back).
      assert.equal(await store.getExecution(`${req.id}:${req.actionHash}`), undefined);
      await il.decide(req.id, { type: 'approve', expectedVersion: 1, actionHash: req.actionHash }, alice);
      assert.equal(
        await code(
          il.executeOnce(
            { key: 'k', tool: req.tool, args: { ...req.args, amount: 9999 }, requestId: req.id },
            async () => 1,
          ),
        ),
        'action_hash_mismatch',
      );
      assert.equal(await store.getExecution('k'), undefined);
      const key = `${req.id}:${req.actionHash}`;
      const keysSeen: string[] = [];
      // A "crashed" first process: it claims, then never finishes (simulated by a different owner whose fn never records).
      const crashed = createInterlock({ store, policy, now: clock.now, owner: 'crashed-process' });
      // The side effect starts only after the claim committed: its start is the signal.
      let claimed!: () => void;
      const started = new Promise<void>((r) => (claimed = r));
      const claimOnly = crashed.executeOnce(
        { key, tool: req.tool, args: req.args, requestId: req.id },
        () => {
          claimed();
          return new Promise<never>(() => undefined);
        },
        { leaseMs: 1000 },
      );
      void claimOnly;
      await started;
      const during = await il.executeOnce(
        { key, tool: req.tool, args: req.args, requestId: req.id },
        async () => 'should not run',
      );
      assert.equal(during.status, 'in_progress');
      clock.advance(2000);
      const retried = await il.executeOnce(
        { key, tool: req.tool, args: req.args, requestId: req.id },
        async ({ idempotencyKey, attempt }) => {
          keysSeen.push(idempotencyKey);
          return { refundId: 'rf_1', attempt };
        },
      );
      assert.deepEqual(retried, {
        status: 'succeeded',
        result: { refundId: 'rf_1', attempt: 2 },
        replayed: false,
        key,
      });
      assert.deepEqual(keysSeen, [key]);
      const again = await il.executeOnce({ key, tool: req.tool, args: req.args, requestId: req.id }, async () => {
        throw new Error('must not run twice');
      });
      assert.equal(again.status, 'succeeded');
      assert.equal(again.status === 'succeeded' && again.replayed, true);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
      const story = await il.explain(req.id);
      assert.deepEqual(
        story.decisions.map((d) => [d.type, d.by]),
        [['approved', 'reviewer:alice']],
      );
      assert.equal(story.executions.length, 1);
      assert.equal(story.executions[0]?.attempts, 2);
      assert.equal(story.events.filter((e) => e.type === 'executed').length, 1);
    });

    it('records a failed execution once and does not retry it', async () => {
      const out = await il.executeOnce({ key: 'fail-1', tool: 'issue_refund', args: { amount: 1 } }, async () => {
        throw new Error('payment API down');
      });
      assert.deepEqual(out, { status: 'failed', error: 'payment API down', replayed: false, key: 'fail-1' });
      const again = await il.executeOnce({ key: 'fail-1', tool: 'issue_refund', args: { amount: 1 } }, async () => 'x');
      assert.equal(again.status, 'failed');
    });

    it('of 50 simultaneous decisions from two processes, exactly one wins', async () => {
      const second = createInterlock({ store: await backend.create(), policy, now: clock.now });
      const { req } = await pauseRefund(800, 'race');
      const reviewers = Array.from({ length: 50 }, (_, i): Reviewer => ({ id: `r${i}`, roles: ['supervisor'] }));
      const results = await Promise.allSettled(
        reviewers.map((r, i) =>
          (i % 2 ? second : il).decide(
            req.id,
            { type: i % 3 === 0 ? 'reject' : 'approve', expectedVersion: 1, actionHash: req.actionHash, message: 'no' },
            r,
          ),
        ),
      );
      const wins = results.filter((r) => r.status === 'fulfilled');
      assert.equal(wins.length, 1);
      for (const r of results) {
        if (r.status === 'rejected')
          assert.ok(
            ['already_resolved', 'stale_version'].includes((r.reason as InterlockError).code),
            String(r.reason),
          );
      }
      assert.equal((await store.listJobs({ requestId: req.id, kind: 'resume' })).length, 1);
      const decisions = (await store.listAudit({ requestId: req.id })).filter(
        (e) => e.type === 'approved' || e.type === 'rejected',
      );
      assert.equal(decisions.length, 1);
    });

    it('a decision racing the sweeper has exactly one outcome', async () => {
      const second = createInterlock({ store: await backend.create(), policy, now: clock.now });
      for (let i = 0; i < 5; i++) {
        const { req } = await pauseRefund(800, `sw${i}`);
        clock.advance(30 * 60_000 - 1); // one millisecond before expiry: the decision is still allowed
        const [d, s] = await Promise.allSettled([
          il.decide(req.id, { type: 'approve', expectedVersion: 1, actionHash: req.actionHash }, alice),
          (clock.advance(1), second.expireDue()),
        ]);
        const final = await il.getRequestOrThrow(req.id);
        const events = (await store.listAudit({ requestId: req.id })).filter(
          (e) => e.type === 'approved' || e.type === 'expired',
        );
        assert.equal(events.length, 1, `one outcome recorded (decision ${d.status}, sweep ${s.status})`);
        assert.ok(['authorized', 'expired'].includes(final.status));
        assert.equal((await store.listJobs({ requestId: req.id, kind: 'resume' })).length, 1);
      }
    });

    it('detects audit tampering and names the first broken event', async () => {
      const ok = await il.verifyAudit();
      assert.equal(ok.ok, true);
      const events = await store.listAudit({ limit: 100 });
      const victim = events[3]!;
      // Tamper directly in the database, as an attacker with SQL access would.
      await store.unsafeQuery(`UPDATE il_audit SET payload = '{"tampered":true}' WHERE seq = $1`, [victim.seq]);
      const bad = await il.verifyAudit();
      assert.equal(bad.ok, false);
      assert.equal(!bad.ok && bad.brokenAt.seq, victim.seq);
    });
  });
}
