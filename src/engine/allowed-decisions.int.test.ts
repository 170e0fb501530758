import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import { decisionsFor, definePolicy, type ApprovalRequest, type PolicyConfig, type Reviewer } from '../core/index.ts';

const refundSchema = z.object({ orderId: z.string(), amount: z.number().positive() });

// Wire transfers: a reviewer approves or rejects the exact transfer; rewriting it is not theirs to do.
const policy: PolicyConfig = {
  tools: {
    wire_transfer: [
      { id: 'wire', tier: 'approve', role: 'treasury', reason: 'every wire', decisions: ['approve', 'reject'] },
      {
        id: 'big-wire',
        tier: 'escalate',
        role: 'treasury',
        approvals: 2,
        reason: 'wire over $10,000',
        decisions: ['approve', 'reject', 'respond'],
        when: ({ args }) => Number(args.amount) > 10_000,
      },
    ],
    issue_refund: [{ id: 'refund', tier: 'approve', role: 'treasury', reason: 'every refund' }],
  },
};

const tess: Reviewer = { id: 'tess', roles: ['treasury'] };

describe('a rule that allows some decisions', () => {
  it('must allow approve and reject: a policy without one is refused when defined', () => {
    assert.throws(
      () => definePolicy({ tools: { t: [{ id: 'x', tier: 'approve', reason: 'r', decisions: ['approve', 'edit'] }] } }),
      /must include "approve" and "reject"/,
    );
    assert.throws(
      () =>
        definePolicy({
          tools: { t: [{ id: 'x', tier: 'approve', reason: 'r', decisions: ['approve', 'reject', 'veto' as 'edit'] }] },
        }),
      /decisions/,
    );
  });
});

for (const backend of allBackends()) {
  describe(`the decisions a rule allows, on ${backend.name}`, () => {
    let il: Interlock;
    let n = 0;
    before(async () => {
      il = createInterlock({
        store: await backend.create(),
        policy,
        tools: { wire_transfer: { schema: refundSchema }, issue_refund: { schema: refundSchema } },
      });
    });
    after(() => backend.destroy());

    async function pause(tool: string, amount: number): Promise<ApprovalRequest> {
      const call = { tool, args: { orderId: `W-${++n}`, amount } };
      const { requests } = await il.pause({
        thread: { id: `ad-${backend.name}-${n}`, agent: 'payments', agentVersion: '1' },
        checkpoint: { newMessages: [], state: {}, schemaVersion: 1 },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:payments',
      });
      return requests[0]!;
    }

    it('the request keeps them; every reader offers only them', async () => {
      const req = await pause('wire_transfer', 900);
      assert.deepEqual((await il.getRequestOrThrow(req.id)).decisions, ['approve', 'reject']);
      assert.deepEqual(decisionsFor(req, tess, [], Date.now()), ['approve', 'reject']);
      const refund = await pause('issue_refund', 900);
      assert.equal(refund.decisions, undefined, 'a rule without the list allows all four');
      assert.deepEqual(decisionsFor(refund, tess, [], Date.now()), ['approve', 'edit', 'reject', 'respond']);
    });

    it('any other decision is refused with decision_not_allowed and changes nothing', async () => {
      const req = await pause('wire_transfer', 900);
      for (const d of [
        { type: 'edit' as const, args: { orderId: 'W-x', amount: 1 } },
        { type: 'respond' as const, message: 'no' },
      ])
        await assert.rejects(
          il.decide(req.id, { ...d, expectedVersion: req.version, actionHash: req.actionHash }, tess),
          (e: Error & { code?: string }) => {
            assert.equal(e.code, 'decision_not_allowed');
            assert.match(e.message, /takes only approve, reject/);
            return true;
          },
        );
      const after = await il.getRequestOrThrow(req.id);
      assert.equal(after.status, 'pending');
      assert.equal(after.version, req.version);
      const ok = await il.decide(
        req.id,
        { type: 'reject', expectedVersion: req.version, actionHash: req.actionHash },
        tess,
      );
      assert.equal(ok.outcome, 'rejected');
    });

    it('each rule has its own list: the larger wire also allows respond', async () => {
      const req = await pause('wire_transfer', 20_000);
      assert.deepEqual(req.decisions, ['approve', 'reject', 'respond']);
    });
  });
}
