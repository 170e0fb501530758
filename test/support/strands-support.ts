import { Agent, tool, type Message } from '@strands-agents/sdk';
import { z } from 'zod';
import { interlockRun } from '../../src/strands.ts';
import { FakeStrandsModel, userTurn } from './strands-model.ts';

/** The refund tool's schema (edits are validated against it). */
export const refundSchema = z.object({ orderId: z.string(), amount: z.number().positive() });

/** Every refund that ran, with its idempotency key. */
export interface RefundLog {
  runs: Array<{ args: { orderId: string; amount: number }; key: string }>;
}

/** What the tool results of a conversation said, by call id (what the model read). */
export function toolResults(messages: Message[]): Record<string, { status: string; text: string }> {
  const out: Record<string, { status: string; text: string }> = {};
  for (const m of messages)
    for (const b of m.content)
      if (b.type === 'toolResultBlock')
        out[b.toolUseId] = {
          status: b.status,
          text: b.content.map((c) => (c.type === 'textBlock' ? c.text : JSON.stringify(c.toJSON()))).join(' '),
        };
  return out;
}

/**
 * The support model: `refund <order> <amount>` (several joined by `;`) proposes those refunds in one
 * step, call ids `call_1`, `call_2`…; after tool results it answers with what they said.
 */
export function supportModel(): FakeStrandsModel {
  return new FakeStrandsModel((messages) => {
    const text = userTurn(messages);
    if (text?.startsWith('refund'))
      return text.split(';').map((part, i) => {
        const [, orderId = 'A-1', amount = '0'] = part.trim().split(/\s+/);
        return { id: `call_${i + 1}`, name: 'issue_refund', input: { orderId, amount: Number(amount) } };
      });
    const results = Object.entries(toolResults(messages)).map(([id, r]) => `${id}: ${r.status} ${r.text}`);
    return results.length ? `Results. ${results.join(' | ')}` : 'Hello.';
  });
}

/** The refund tool, logging each run with the key Interlock hands it. */
export function refundTool(log: RefundLog) {
  return tool({
    name: 'issue_refund',
    description: 'Refund an order',
    inputSchema: refundSchema,
    callback: (args, context) => {
      log.runs.push({ args, key: interlockRun(context).idempotencyKey });
      return `refunded ${args.amount} on ${args.orderId}`;
    },
  });
}

/** A support agent over the given model and tools. */
export function supportAgent(
  model: FakeStrandsModel,
  tools: unknown[],
  extra: Partial<ConstructorParameters<typeof Agent>[0]> = {},
) {
  return new Agent({ model, tools: tools as never, printer: false, ...extra });
}
