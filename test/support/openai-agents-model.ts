import { Agent, Runner, tool, type AgentInputItem } from '@openai/agents-core';
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents-core/testing';
import { z } from 'zod';

/** The refund tool's parameters. */
export const refundSchema = z.object({ orderId: z.string(), amount: z.number().positive() });

/** What the refund tool did, for assertions: each run with its arguments and idempotency key. */
export interface RefundLog {
  runs: Array<{ args: { orderId: string; amount: number }; key: string | undefined }>;
}

/** The outputs of the function calls the model was given last, by call id. */
export function lastOutputs(input: string | AgentInputItem[]): Record<string, unknown> {
  if (typeof input === 'string') return {};
  const out: Record<string, unknown> = {};
  for (const item of input as Array<{ type?: string; callId?: string; output?: unknown }>)
    if (item.type === 'function_call_result' && item.callId) out[item.callId] = item.output;
  return out;
}

/**
 * An offline model on the SDK's own `ScriptedModel`: on a user message it proposes the calls
 * `plan` returns ("refund A-1 850", "both A-1 850"), after tool outputs it quotes them.
 */
export function supportModel(turns = 20): ScriptedModel & { seen: Array<string | AgentInputItem[]> } {
  const seen: Array<string | AgentInputItem[]> = [];
  const step = modelResponder((call) => {
    const input = call.request.input;
    seen.push(input);
    const items = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
    const last = items.at(-1) as { role?: string; content?: unknown };
    if (last.role === 'user' && typeof last.content === 'string') {
      const [verb, orderId = 'A-1', amount = '0'] = last.content.trim().split(/\s+/);
      const refund = functionCall('issue_refund', { orderId, amount: Number(amount) }, { callId: 'call_refund' });
      const lookup = functionCall('lookup_order', { orderId }, { callId: 'call_lookup' });
      if (verb === 'refund') return [refund];
      if (verb === 'both') return [lookup, refund];
    }
    return [assistantMessage(`Done: ${JSON.stringify(lastOutputs(input))}`)];
  });
  const model = new ScriptedModel(Array.from({ length: turns }, () => step));
  return Object.assign(model, { seen });
}

/** An order-support agent as a team writes it on the OpenAI Agents SDK. */
export function supportAgent(model: ScriptedModel, log: RefundLog) {
  return new Agent({
    name: 'support',
    instructions: 'You help customers.',
    model,
    tools: [
      tool({
        name: 'lookup_order',
        description: 'Look up an order',
        parameters: z.object({ orderId: z.string() }),
        execute: async ({ orderId }) => JSON.stringify({ orderId, status: 'delivered' }),
      }),
      tool({
        name: 'issue_refund',
        description: 'Refund an order',
        parameters: refundSchema,
        execute: async (args, _ctx, details) => {
          const key = (details as { interlock?: { idempotencyKey: string } } | undefined)?.interlock?.idempotencyKey;
          log.runs.push({ args, key });
          return `refunded ${args.amount} on ${args.orderId}`;
        },
      }),
    ],
  });
}

/** A runner that sends no traces anywhere (offline tests). */
export const runner = new Runner({ tracingDisabled: true });
