import { AIMessage, tool, type BaseMessage } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { z } from 'zod';
import { interlockRun } from '../../src/langchain.ts';

/** What the refund tool did, for assertions: each run with its arguments and idempotency key. */
export interface RefundLog {
  runs: Array<{ args: { orderId: string; amount: number }; key: string }>;
}

/** The contents of the tool messages the model was given last, by call id. */
export function lastToolContents(messages: BaseMessage[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = messages.length - 1; i >= 0 && messages[i]!.getType() === 'tool'; i--) {
    const m = messages[i] as BaseMessage & { tool_call_id: string };
    out[m.tool_call_id] = m.content;
  }
  return out;
}

/**
 * LangChain's own offline model (`fakeModel` from @langchain/core/testing), answering from the
 * conversation: "refund A-1 850" proposes a refund, "both A-1 850" a lookup and a refund in one
 * step; after tool results it quotes them.
 */
export function supportModel(turns = 40) {
  const model = fakeModel();
  for (let i = 0; i < turns; i++)
    model.respond((messages) => {
      const last = messages.at(-1)!;
      if (last.getType() === 'human' && typeof last.content === 'string') {
        const [verb, orderId = 'A-1', amount = '0'] = last.content.trim().split(/\s+/);
        const refund = { name: 'issue_refund', args: { orderId, amount: Number(amount) }, id: 'call_refund' };
        const lookup = { name: 'lookup_order', args: { orderId }, id: 'call_lookup' };
        const calls = verb === 'refund' ? [refund] : verb === 'both' ? [lookup, refund] : [];
        if (calls.length) return new AIMessage({ content: '', tool_calls: calls });
      }
      return new AIMessage(`Done: ${JSON.stringify(lastToolContents(messages))}`);
    });
  return model;
}

/** The order-support tools as a LangChain team writes them; the refund reads Interlock's key. */
export function supportTools(log: RefundLog) {
  return [
    tool(async ({ orderId }) => `order ${orderId}: delivered`, {
      name: 'lookup_order',
      description: 'Look up an order',
      schema: z.object({ orderId: z.string() }),
    }),
    tool(
      async (args) => {
        log.runs.push({ args, key: interlockRun().idempotencyKey });
        return `refunded ${args.amount} on ${args.orderId}`;
      },
      {
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.strictObject({ orderId: z.string(), amount: z.number().positive() }),
      },
    ),
  ];
}
