/**
 * An approver whose approved action failed is told: the failure's transaction enqueues a notice to
 * the people who approved it, and the "needs attention" reads list exactly the failed approvals —
 * a reviewer's own (those they decided on), or all of them — newest failure first, paged, counted.
 * On both databases.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { ApprovalRequest, PolicyConfig, Reviewer } from '../core/index.ts';
import type { Store } from '../store/types.ts';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import { NOTICE_ERROR_MAX } from './approval-failed.ts';

const policy: PolicyConfig = {
  tools: {
    issue_refund: [
      {
        id: 'big',
        tier: 'approve',
        role: 'support',
        reason: 'over $1,000: two reviewers',
        approvals: 2,
        timeout: '1h',
        when: ({ args }) => Number(args.amount) > 1000,
      },
      { id: 'refund', tier: 'approve', role: 'support', reason: 'every refund', timeout: '1h' },
    ],
    send_email: [
      { id: 'mail', tier: 'approve', role: 'support', reason: 'e-mail', timeout: '1h', onTimeout: 'approve' },
    ],
  },
};

const dana: Reviewer = { id: 'dana', name: 'Dana Reviewer', roles: ['support'] };
const sue: Reviewer = { id: 'sue', name: 'Sue Supervisor', roles: ['support'] };

for (const backend of allBackends()) {
  describe(`failed approvals on ${backend.name}`, () => {
    const clock = manualClock();
    let store: Store;
    let il: Interlock;
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({
        store,
        policy,
        now: clock.now,
        tools: { issue_refund: { schema: z.object({ orderId: z.string(), amount: z.number() }) } },
      });
      for (const r of [dana, sue])
        await il.reviewers.insertReviewer({
          ...r,
          name: r.name!,
          tokenHash: `h-${r.id}`,
          revoked: false,
          createdAt: 0,
        });
    });
    after(() => backend.destroy());

    async function pauseCall(tool: string, args: Record<string, unknown>): Promise<ApprovalRequest> {
      const call = { tool, args };
      const { requests } = await il.pause({
        thread: { id: `att-${backend.name}-${++n}`, agent: 'a', agentVersion: '1' },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:a',
      });
      return requests[0]!;
    }
    const approve = async (req: ApprovalRequest, by: Reviewer) => {
      const cur = await il.getRequestOrThrow(req.id);
      return il.decide(req.id, { type: 'approve', expectedVersion: cur.version, actionHash: cur.actionHash }, by);
    };
    const run = async (req: ApprovalRequest, error?: string) => {
      clock.advance(1000);
      const cur = await il.getRequestOrThrow(req.id);
      return il.executeOnce(
        {
          key: `${cur.id}:${cur.actionHash}`,
          tool: cur.tool,
          args: cur.args,
          requestId: cur.id,
          threadId: cur.threadId,
        },
        async () => {
          if (error !== undefined) throw new Error(error);
          return 'ok';
        },
      );
    };
    const notices = async (requestId: string) =>
      (await store.listJobs({ requestId, kind: 'notify' })).filter((j) => j.payload.approvalFailed === true);

    it('a failed approved action enqueues one notice to its approvers in the failure’s transaction; a success none', async () => {
      const failed = await pauseCall('issue_refund', { orderId: 'ORD-1', amount: 1500 });
      await approve(failed, dana);
      await approve(failed, sue);
      const long = `card declined for dana.reyes@example.com ${'x'.repeat(900)}`;
      assert.equal((await run(failed, long)).status, 'failed');
      const [job, ...more] = await notices(failed.id);
      assert.equal(more.length, 0);
      assert.equal(job!.status, 'ready');
      assert.equal(job!.threadId, failed.threadId);
      const p = job!.payload;
      assert.deepEqual(
        { ...p, error: undefined },
        {
          approvalFailed: true,
          role: 'support',
          tool: 'issue_refund',
          approvers: ['dana', 'sue'],
          failedAt: clock.now(),
          error: undefined,
        },
      );
      assert.match(String(p.error), /^card declined for d\*\*\*@example\.com x+…$/, 'masked and cut');
      assert.equal(String(p.error).length, NOTICE_ERROR_MAX);
      assert.equal((await il.getRequestOrThrow(failed.id)).status, 'failed');

      const ok = await pauseCall('issue_refund', { orderId: 'ORD-2', amount: 20 });
      await approve(ok, dana);
      assert.equal((await run(ok)).status, 'succeeded');
      assert.deepEqual(await notices(ok.id), []);

      // A replay of the failed execution records nothing new and tells nobody twice.
      const replay = await run(failed, 'again');
      assert.equal(replay.status === 'failed' && replay.replayed, true);
      assert.equal((await notices(failed.id)).length, 1);
    });

    it('an edit that authorized the action counts its editor as the approver; a timeout default tells nobody', async () => {
      const edited = await pauseCall('issue_refund', { orderId: 'ORD-3', amount: 30 });
      await il.decide(
        edited.id,
        {
          type: 'edit',
          args: { orderId: 'ORD-3', amount: 25 },
          expectedVersion: edited.version,
          actionHash: edited.actionHash,
        },
        sue,
      );
      await run(edited, 'shop offline');
      assert.deepEqual((await notices(edited.id))[0]?.payload.approvers, ['sue']);

      const timedOut = await pauseCall('send_email', { to: 'x' });
      clock.advance(2 * 3_600_000);
      await il.expireDue();
      assert.equal((await il.getRequestOrThrow(timedOut.id)).status, 'authorized');
      assert.equal((await run(timedOut, 'smtp down')).status, 'failed');
      assert.deepEqual(await notices(timedOut.id), [], 'no person approved it');
    });

    it('lists failed approvals newest first, per reviewer or all, with error, time and approvers; paged and counted', async () => {
      const before = await il.attention.count({ all: true });
      const mine: ApprovalRequest[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await pauseCall('issue_refund', { orderId: `ORD-P${i}`, amount: 10 + i });
        await approve(r, i % 2 === 0 ? dana : sue);
        await run(r, i === 4 ? undefined : `bank said no ${i} to 4111 1111 1111 1111`);
        mine.push(r);
      }
      // A rejected request never ran: not in the list, even for the reviewer who decided it.
      const rejected = await pauseCall('issue_refund', { orderId: 'ORD-R', amount: 5 });
      await il.decide(
        rejected.id,
        { type: 'reject', expectedVersion: 1, actionHash: rejected.actionHash, message: 'no' },
        dana,
      );

      assert.equal(await il.attention.count({ all: true }), before + 4);
      const danas = await il.attention.list({ reviewer: 'dana' });
      const danaFailed = danas.items.map((f) => f.request.id);
      assert.ok(danaFailed.includes(mine[2]!.id) && danaFailed.includes(mine[0]!.id));
      assert.ok(!danaFailed.includes(mine[1]!.id) && !danaFailed.includes(mine[3]!.id), 'only what Dana decided');
      assert.ok(!danaFailed.includes(mine[4]!.id), 'succeeded');
      assert.equal(danaFailed.indexOf(mine[2]!.id) < danaFailed.indexOf(mine[0]!.id), true, 'newest first');
      assert.equal(await il.attention.count({ reviewer: 'dana' }), danas.items.length);
      const top = danas.items[0]!;
      assert.equal(top.request.id, mine[2]!.id);
      assert.equal(top.error, 'bank said no 2 to [card ****1111]');
      assert.equal(top.failedAt, (await il.getRequestOrThrow(mine[2]!.id)).updatedAt);
      assert.deepEqual(top.approvers, [{ id: 'dana', name: 'Dana Reviewer' }]);

      // Pages of 2 cover the whole list once, in order.
      const all = await il.attention.list({ all: true }, { limit: 200 });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await il.attention.list({ all: true }, { limit: 2, ...(cursor ? { cursor } : {}) });
        assert.ok(page.items.length <= 2);
        seen.push(...page.items.map((f) => f.request.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      assert.deepEqual(
        seen,
        all.items.map((f) => f.request.id),
      );
      assert.equal(seen.length, before + 4);
      await assert.rejects(il.attention.list({ all: true }, { cursor: 'bogus' }), { code: 'invalid_input' });
    });

    it('finds the chat accounts linked to approvers', async () => {
      await il.reviewers.linkIdentity('slack', 'U_DANA', 'dana', clock.now());
      assert.deepEqual(await il.attention.linkedAccounts('slack', ['dana', 'sue']), [
        { reviewerId: 'dana', externalId: 'U_DANA' },
      ]);
      assert.deepEqual(await il.attention.linkedAccounts('slack', []), []);
    });
  });
}
