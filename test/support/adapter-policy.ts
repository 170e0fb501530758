import type { PolicyConfig } from '../../src/index.ts';

/** The order-support policy the adapter tests share: lookups run, refunds over $500 wait, over $5,000 are blocked. */
export const refundPolicy: PolicyConfig = {
  tools: {
    lookup_order: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
    issue_refund: [
      { id: 'small', tier: 'auto', reason: 'small refund' },
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
        tier: 'block',
        reason: 'refunds over $5,000 are not done by agents',
        when: ({ args }) => Number(args.amount) > 5000,
      },
    ],
  },
};
