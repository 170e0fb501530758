import type { PolicyConfig } from '../../src/index.ts';

/**
 * The example's policy. Reading it top to bottom is the point: every tool
 * says when it runs alone, who approves it, how long they have, and what
 * happens if nobody answers.
 */
export const orderSupportPolicy: PolicyConfig = {
  tools: {
    look_up_order: [{ id: 'read-only', tier: 'auto', reason: 'looking up an order changes nothing' }],
    issue_refund: {
      aggregates: { refunds24h: { fn: 'sum', field: 'amount', groupBy: 'customerId', window: '24h' } },
      rules: [
        { id: 'refund-small', tier: 'auto', reason: 'refunds up to $500 run alone' },
        {
          id: 'refund-over-500',
          tier: 'approve',
          role: 'supervisor',
          timeout: '30m',
          onTimeout: 'reject',
          reason: ({ args }) => `refund of $${String(args.amount)} is over $500`,
          when: ({ args }) => Number(args.amount) > 500,
        },
        {
          id: 'refund-over-2000',
          tier: 'escalate',
          role: 'supervisor',
          approvals: 2,
          timeout: '30m',
          reason: ({ args }) => `refund of $${String(args.amount)} is over $2,000: two supervisors must approve`,
          when: ({ args }) => Number(args.amount) > 2000,
        },
        {
          // Small refunds run alone until they add up: three $49 refunds in an hour escalate.
          id: 'refund-velocity',
          tier: 'escalate',
          role: 'supervisor',
          timeout: '30m',
          reason: ({ args, ctx }) =>
            `this customer's refunds would reach $${(ctx.aggregates.refunds24h ?? 0) + Number(args.amount)} within 24 h (limit $100)`,
          when: ({ args, ctx }) =>
            Number(args.amount) <= 500 && (ctx.aggregates.refunds24h ?? 0) + Number(args.amount) > 100,
        },
      ],
    },
    cancel_subscription: [
      {
        id: 'cancel-review',
        tier: 'approve',
        role: 'retention_lead',
        timeout: '15m',
        reason: 'cancellations are reviewed by retention',
      },
    ],
    send_email: [
      {
        id: 'email-review',
        tier: 'approve',
        role: 'supervisor',
        timeout: '1h',
        reason: ({ args }) =>
          `email to a customer: ${typeof args.reason === 'string' ? args.reason : 'no reason given'}`,
      },
    ],
    change_shipped_address: [
      {
        id: 'address-change',
        tier: 'escalate',
        role: 'logistics',
        timeout: '2h',
        reason: 'changing the address of a shipped order risks misdelivery',
      },
    ],
    send_contract: [
      { id: 'contract-small', tier: 'auto', reason: 'contracts up to $10,000 are standard' },
      {
        id: 'contract-legal',
        tier: 'approve',
        role: 'legal',
        timeout: '24h',
        reason: 'contracts over $10,000 need legal',
        when: ({ args }) => Number(args.value) > 10_000,
      },
    ],
    delete_customer: [
      { id: 'never', tier: 'block', reason: 'deleting customers is not allowed from the support agent' },
    ],
  },
};

/** Roles the example's reviewers need. */
export const ORDER_SUPPORT_ROLES = ['supervisor', 'retention_lead', 'logistics', 'legal'] as const;
