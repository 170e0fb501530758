import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { InMemoryStore } from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { interlockRun } from '../../src/mastra.ts';
import { mastraModel, type PlannedCall } from './mastra-model.ts';

/** What the refund tool did, for assertions: each run with its arguments and idempotency key. */
export interface MastraRefundLog {
  runs: Array<{ args: { orderId: string; amount: number }; key: string }>;
}

/** `refund <order> <amount>` (several joined by `;`, each with an optional `@id`), or `lookup <order>`. */
export function plan(text: string): PlannedCall[] {
  return text.split(';').flatMap((part, i) => {
    const words = part.trim().split(/\s+/);
    const id = words.find((w) => w.startsWith('@'))?.slice(1) ?? (i === 0 ? 'call_refund' : `call_refund_${i}`);
    const [verb, orderId = 'A-1', amount = '0'] = words.filter((w) => !w.startsWith('@'));
    if (verb === 'refund') return [{ id, tool: 'issue_refund', args: { orderId, amount: Number(amount) } }];
    if (verb === 'lookup') return [{ id, tool: 'lookup_order', args: { orderId } }];
    return [];
  });
}

/** The order-support tools; `issue_refund` records each run (and `before`, if given, runs first). */
export function supportTools(log: MastraRefundLog, before?: () => void | Promise<void>) {
  return {
    issue_refund: createTool({
      id: 'issue_refund',
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
      execute: async (args, ctx) => {
        await before?.();
        log.runs.push({ args, key: interlockRun(ctx).idempotencyKey });
        return { refunded: args.amount };
      },
    }),
    lookup_order: createTool({
      id: 'lookup_order',
      description: 'Look up an order',
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({ orderId, total: 900 }),
    }),
  };
}

/** A support agent on Mastra's own mock model, registered on a Mastra of its own with in-memory storage. */
export function supportAgent(tools: ReturnType<typeof supportTools>) {
  const model = mastraModel(plan);
  const agent = new Agent({ id: 'support', name: 'Support', instructions: 'You help customers.', model, tools });
  const storage = new InMemoryStore();
  new Mastra({ agents: { support: agent }, storage, logger: false });
  return { agent, model, storage };
}
