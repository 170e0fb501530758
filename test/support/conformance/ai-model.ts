import { MockLanguageModelV4 } from 'ai/test';
import type { ConformanceWorld } from '../../../src/testing/index.ts';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/**
 * The conformance model on the AI SDK's own `MockLanguageModelV4` (the native loop and the AI SDK
 * adapter both speak its protocol): on a user message it proposes `world.plan(text)` in one step;
 * after tool results it answers with a text.
 */
export function conformanceModel(world: ConformanceWorld): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (opts) => {
      const last = opts.prompt.at(-1)!;
      if (last.role === 'user') {
        const text = last.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
        const calls = world.plan(text);
        if (calls.length > 0)
          return {
            content: calls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.tool,
              input: JSON.stringify(c.args),
            })),
            finishReason: { unified: 'tool-calls' as const, raw: undefined },
            usage,
            warnings: [],
          };
      }
      world.afterTools();
      return {
        content: [{ type: 'text' as const, text: 'Done.' }],
        finishReason: { unified: 'stop' as const, raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}
