import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { definePolicy } from '../core/index.ts';
import { policyFor, tool } from './tool.ts';

const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an order',
  schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  execute: async ({ amount }) => ({ refunded: amount }),
});

describe('policyFor: rules typed by the tool they are for', () => {
  it('rules see the tool argument types and evaluate like name-keyed ones', () => {
    const policy = definePolicy({
      tools: {
        ...policyFor(issueRefund, [
          // `args.amount` is a number here: no Number(...) and no cast.
          {
            id: 'large',
            tier: 'approve',
            role: 'supervisor',
            reason: ({ args }) => `refund of $${args.amount.toFixed(2)} for ${args.orderId}`,
            when: ({ args }) => args.amount > 500,
          },
          { id: 'small', tier: 'auto', reason: 'small refund' },
        ]),
      },
    });
    const ctx = { now: new Date(), app: {}, aggregates: {} };
    const big = policy.evaluate({ tool: 'issue_refund', args: { orderId: 'ORD-1', amount: 850 } }, ctx);
    assert.deepEqual([big.tier, big.ruleId, big.reason], ['approve', 'large', 'refund of $850.00 for ORD-1']);
    assert.equal(policy.evaluate({ tool: 'issue_refund', args: { orderId: 'ORD-1', amount: 40 } }, ctx).tier, 'auto');
  });

  it('a misspelt argument is a type error (checked by tsc in npm test)', () => {
    policyFor(issueRefund, [
      // @ts-expect-error -- `amout` is not an argument of issue_refund
      { id: 'typo', tier: 'approve', reason: 'x', when: ({ args }) => args.amout > 1 },
    ]);
    assert.ok(true);
  });
});
