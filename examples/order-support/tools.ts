import { z } from 'zod';
import { tool, type Tool } from '../../src/index.ts';
import { CUSTOMERS, ORDERS, SUBSCRIPTIONS } from './data.ts';

/** Where the example's side effects land: a ledger the demo (and tests) can read. */
export interface ShopBackend {
  refunds: Array<{ orderId: string; amount: number; idempotencyKey: string }>;
  cancellations: Array<{ subscriptionId: string; idempotencyKey: string }>;
  emails: Array<{ to: string; subject: string; idempotencyKey: string }>;
  addressChanges: Array<{ orderId: string; address: string; idempotencyKey: string }>;
  contracts: Array<{ customerId: string; value: number; idempotencyKey: string }>;
}

export function createShopBackend(): ShopBackend {
  return { refunds: [], cancellations: [], emails: [], addressChanges: [], contracts: [] };
}

/** Apply once per idempotency key, as a real payment or mail API does. */
function once<T extends { idempotencyKey: string }>(list: T[], entry: T): T {
  const prior = list.find((e) => e.idempotencyKey === entry.idempotencyKey);
  if (prior) return prior;
  list.push(entry);
  return entry;
}

/** The order-support tools over a shop backend. */
export function orderSupportTools(shop: ShopBackend): Tool[] {
  return [
    tool({
      name: 'look_up_order',
      description: 'Look up an order by id: amount, status, customer.',
      schema: z.object({ orderId: z.string().describe('Order id such as ORD-999') }),
      execute: async ({ orderId }) => {
        const o = ORDERS[orderId];
        if (!o) throw new Error(`no order ${orderId}`);
        const refunded = shop.refunds.filter((r) => r.orderId === orderId).reduce((s, r) => s + r.amount, 0);
        return { ...o, refunded };
      },
    }),
    tool({
      name: 'issue_refund',
      description: 'Refund (part of) an order to the original payment method.',
      schema: z.object({
        orderId: z.string(),
        customerId: z.string(),
        amount: z.number().positive().describe('US dollars'),
      }),
      execute: async ({ orderId, amount }, { idempotencyKey }) => {
        const o = ORDERS[orderId];
        if (!o) throw new Error(`no order ${orderId}`);
        // Refunds add up: all of an order's refunds together may not pass its total (a retry of this one is not counted twice).
        const earlier = shop.refunds
          .filter((r) => r.orderId === orderId && r.idempotencyKey !== idempotencyKey)
          .reduce((sum, r) => sum + r.amount, 0);
        if (earlier + amount > o.amount)
          throw new Error(
            `refund $${amount} on top of $${earlier} already refunded exceeds the order total $${o.amount}`,
          );
        const r = once(shop.refunds, { orderId, amount, idempotencyKey });
        return { refundId: `RF-${r.idempotencyKey.slice(-6).toUpperCase()}`, orderId, amount };
      },
      // What a reviewer needs beside the amount: what this order and this customer were already refunded.
      evidence: ({ orderId, customerId }) => {
        const o = ORDERS[orderId];
        const ofOrder = shop.refunds.filter((r) => r.orderId === orderId);
        const ofCustomer = shop.refunds.filter((r) => ORDERS[r.orderId]?.customerId === customerId);
        return {
          orderTotal: o ? o.amount : 'unknown order',
          refundedOnThisOrder: ofOrder.reduce((sum, r) => sum + r.amount, 0),
          earlierRefundsOfThisCustomer: ofCustomer.map((r) => `${r.orderId}: $${r.amount}`),
        };
      },
    }),
    tool({
      name: 'cancel_subscription',
      description: 'Cancel a subscription at the end of the billing period.',
      schema: z.object({ subscriptionId: z.string() }),
      execute: async ({ subscriptionId }, { idempotencyKey }) => {
        if (!SUBSCRIPTIONS[subscriptionId]) throw new Error(`no subscription ${subscriptionId}`);
        once(shop.cancellations, { subscriptionId, idempotencyKey });
        return { subscriptionId, cancelled: true };
      },
    }),
    tool({
      name: 'send_email',
      description: 'Email a customer. Give the reason for sending it.',
      schema: z.object({ customerId: z.string(), subject: z.string(), body: z.string(), reason: z.string().min(3) }),
      execute: async ({ customerId, subject }, { idempotencyKey }) => {
        const c = CUSTOMERS[customerId as keyof typeof CUSTOMERS];
        if (!c) throw new Error(`no customer ${customerId}`);
        once(shop.emails, { to: c.email, subject, idempotencyKey });
        return { sent: true };
      },
    }),
    tool({
      name: 'change_shipped_address',
      description: 'Change the delivery address of an order that has shipped.',
      schema: z.object({ orderId: z.string(), address: z.string().min(3) }),
      execute: async ({ orderId, address }, { idempotencyKey }) => {
        if (!ORDERS[orderId]) throw new Error(`no order ${orderId}`);
        once(shop.addressChanges, { orderId, address, idempotencyKey });
        return { orderId, address, rerouted: true };
      },
    }),
    tool({
      name: 'send_contract',
      description: 'Send a service contract to a customer for signature.',
      schema: z.object({ customerId: z.string(), value: z.number().positive() }),
      execute: async ({ customerId, value }, { idempotencyKey }) => {
        once(shop.contracts, { customerId, value, idempotencyKey });
        return { sent: true, value };
      },
    }),
    tool({
      name: 'delete_customer',
      description: 'Delete a customer and their data.',
      schema: z.object({ customerId: z.string() }),
      execute: async () => ({ deleted: true }),
    }),
  ];
}
