import { z } from 'zod';
import type { PolicyConfig } from '../core/index.ts';
import { tool, type Tool } from '../agent/tool.ts';
import type { FakePayments } from './fake-payments.ts';
import type { ScriptContext, ScriptStep } from './scripted-model.ts';

/** The order-support policy used by the agent tests. */
export const supportPolicy: PolicyConfig = {
  tools: {
    look_up_order: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
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
          reason: 'refund over $2,000',
          when: ({ args }) => Number(args.amount) > 2000,
        },
      ],
    },
    cancel_subscription: [
      { id: 'always', tier: 'approve', role: 'retention_lead', timeout: '15m', reason: 'cancellations need review' },
    ],
    send_email: [{ id: 'email', tier: 'notify', role: 'supervisor', reason: 'emails are reviewed after sending' }],
    ask_customer_address: [{ id: 'auto', tier: 'auto', reason: 'asks a person itself' }],
    delete_customer: [{ id: 'never', tier: 'block', reason: 'deleting customers is not allowed' }],
  },
};

/** Tools over a fake payment API that records side effects. */
export function supportTools(pay: FakePayments): Tool[] {
  return [
    tool({
      name: 'look_up_order',
      description: 'Look up an order',
      schema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({
        orderId,
        amount: orderId === 'ORD-999' ? 850 : 45,
        status: 'delivered',
        customerId: 'test-001',
      }),
    }),
    tool({
      name: 'issue_refund',
      description: 'Refund an order',
      schema: z.object({ orderId: z.string(), customerId: z.string(), amount: z.number().positive() }),
      execute: async (args, { idempotencyKey }) => pay.apply('refund', args, idempotencyKey),
    }),
    tool({
      name: 'cancel_subscription',
      description: 'Cancel a subscription',
      schema: z.object({ subscriptionId: z.string() }),
      execute: async (args, { idempotencyKey }) => pay.apply('cancel', args, idempotencyKey),
    }),
    tool({
      name: 'send_email',
      description: 'Email the customer',
      schema: z.object({ to: z.string(), body: z.string() }),
      execute: async (args, { idempotencyKey }) => pay.apply('email', args, idempotencyKey),
    }),
    tool({
      name: 'ask_customer_address',
      description: 'Confirm a new address with a person, twice',
      schema: z.object({ orderId: z.string(), address: z.string() }),
      execute: async (args, ctx) => {
        const first = ctx.interrupt({
          name: 'confirm_address',
          reason: `Is ${args.address} a deliverable address?`,
          role: 'logistics',
        });
        if (first.type === 'reject' || first.type === 'timeout')
          return { changed: false, reason: 'address not confirmed' };
        const second = ctx.interrupt({
          name: 'confirm_fee',
          reason: 'Charge the $5 re-routing fee?',
          role: 'logistics',
        });
        return pay.apply('address_change', { ...args, fee: second.type === 'approve' ? 5 : 0 }, ctx.idempotencyKey);
      },
    }),
    tool({
      name: 'delete_customer',
      description: 'Delete a customer',
      schema: z.object({ customerId: z.string() }),
      execute: async () => ({ deleted: true }),
    }),
  ];
}

/**
 * A support model for `scriptedModel`: acts on the last user message (refund,
 * cancel, look up, address, delete, email; a "$N" sets the refund amount,
 * default 850), then reports on the tool results, offering store credit when a
 * refund was rejected.
 */
export function supportScript(ctx: ScriptContext): ScriptStep {
  if (ctx.lastToolResults.length > 0) {
    const r = ctx.lastToolResults;
    const text = r.map((x) => (typeof x.output === 'string' ? x.output : JSON.stringify(x.output))).join(' | ');
    if (r.some((x) => typeof x.output === 'string' && /rejected/.test(x.output)))
      return { text: `I can't issue that refund. I can offer store credit instead. (${text})` };
    return { text: `Done: ${text}` };
  }
  const m = ctx.lastUserText;
  const amount = /\$(\d+)/.exec(m)?.[1];
  const calls: NonNullable<ScriptStep['toolCalls']> = [];
  if (/refund/.test(m))
    calls.push({
      name: 'issue_refund',
      args: { orderId: 'ORD-999', customerId: /cust (\S+)/.exec(m)?.[1] ?? 'test-001', amount: Number(amount ?? 850) },
    });
  if (/cancel/.test(m)) calls.push({ name: 'cancel_subscription', args: { subscriptionId: 'SUB-7' } });
  if (/look/.test(m)) calls.push({ name: 'look_up_order', args: { orderId: 'ORD-999' } });
  if (/address/.test(m))
    calls.push({ name: 'ask_customer_address', args: { orderId: 'ORD-78291', address: '123 New St' } });
  if (/delete/.test(m)) calls.push({ name: 'delete_customer', args: { customerId: 'test-001' } });
  if (/email/.test(m)) calls.push({ name: 'send_email', args: { to: 'c@example.com', body: 'hi' } });
  return calls.length ? { text: 'Let me take care of that.', toolCalls: calls } : { text: 'How can I help?' };
}
