import { tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

type Prompt = Array<{ role: string; content: unknown }>;
type Call = { id: string; name: string; input: Record<string, unknown> };

/** The tool results (and denials) the model was given last, by call id. */
export function lastResults(prompt: Prompt): Record<string, { type: string; value?: unknown; reason?: string }> {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return {};
  const out: Record<string, { type: string; value?: unknown; reason?: string }> = {};
  for (const p of last.content as Array<{ type: string; toolCallId: string; output: { type: string } }>)
    if (p.type === 'tool-result') out[p.toolCallId] = p.output;
  return out;
}

/**
 * An offline model built on the AI SDK's own `MockLanguageModelV4`: on a user
 * message it proposes the calls `plan` returns for the text; on tool results it
 * answers with a sentence that quotes them, so tests can see what the model saw.
 */
export function supportModel(plan: (text: string) => Call[]): MockLanguageModelV4 & { seen: Prompt[] } {
  const seen: Prompt[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (opts) => {
      const prompt = opts.prompt as Prompt;
      seen.push(prompt);
      const last = prompt.at(-1)!;
      if (last.role === 'user') {
        const text = (last.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? '').join('');
        const calls = plan(text);
        if (calls.length > 0)
          return {
            content: calls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.name,
              input: JSON.stringify(c.input),
            })),
            finishReason: { unified: 'tool-calls' as const, raw: undefined },
            usage,
            warnings: [],
          };
      }
      return {
        content: [{ type: 'text' as const, text: `Done: ${JSON.stringify(lastResults(prompt))}` }],
        finishReason: { unified: 'stop' as const, raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return Object.assign(model, { seen });
}

/** What the refund tool did, for assertions: each run with its arguments and idempotency key. */
export interface RefundLog {
  runs: Array<{ args: { orderId: string; amount: number }; key: string | undefined }>;
}

/** AI SDK tools of an order-support agent; `issue_refund` records each run. */
export function supportTools(log: RefundLog) {
  return {
    lookup_order: tool({
      description: 'Look up an order',
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({ orderId, total: 900, status: 'delivered' }),
    }),
    issue_refund: tool({
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
      execute: async (args, options) => {
        const key = (options as { interlock?: { idempotencyKey: string } }).interlock?.idempotencyKey;
        log.runs.push({ args, key });
        return { refunded: args.amount, orderId: args.orderId };
      },
    }),
  };
}

/**
 * "refund A-1 850" → a refund call; "lookup A-1" → a lookup; "both A-1 850" → both in one step;
 * "dup A-1 900000" → two refunds with one call id in one step ($900,000, then $600).
 */
export function plan(text: string): Call[] {
  const [verb, orderId = 'A-1', amount = '0'] = text.trim().split(/\s+/);
  const refund = { id: 'call_refund', name: 'issue_refund', input: { orderId, amount: Number(amount) } };
  const lookup = { id: 'call_lookup', name: 'lookup_order', input: { orderId } };
  if (verb === 'refund') return [refund];
  if (verb === 'lookup') return [lookup];
  if (verb === 'both') return [lookup, refund];
  // Two gated refunds in one step, each with its own id: the amount given and $900.
  if (verb === 'two') return [refund, { id: 'call_refund2', name: 'issue_refund', input: { orderId, amount: 900 } }];
  // Two calls with one id in one step: the first for the given amount, the second for $600.
  if (verb === 'dup') return [refund, { ...refund, input: { orderId, amount: 600 } }];
  return [];
}

export type { ModelMessage };
