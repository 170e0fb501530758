import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/** A prompt as the model receives it (AI SDK v5 language-model messages). */
export type MastraPrompt = Array<{ role: string; content: unknown }>;

/** One call the model proposes. */
export type PlannedCall = { id: string; tool: string; args: Record<string, unknown> };

/** The tool results (or errors) the model was given last, by call id. */
export function lastResults(prompt: MastraPrompt): Record<string, { type: string; value?: unknown }> {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return {};
  const out: Record<string, { type: string; value?: unknown }> = {};
  for (const p of last.content as Array<{ type: string; toolCallId: string; output: { type: string } }>)
    if (p.type === 'tool-result') out[p.toolCallId] = p.output;
  return out;
}

/**
 * An offline model on Mastra's own `MastraLanguageModelV2Mock`: on a user message it proposes, in one
 * step, the calls `plan` returns for its text; after tool results it answers with `answer(prompt)`
 * (default: "Done." and the results it saw). `seen` keeps every prompt, for assertions.
 */
export function mastraModel(
  plan: (text: string) => PlannedCall[],
  answer: (prompt: MastraPrompt) => string = (p) => `Done: ${JSON.stringify(lastResults(p))}`,
): MastraLanguageModelV2Mock & { seen: MastraPrompt[] } {
  const seen: MastraPrompt[] = [];
  const model = new MastraLanguageModelV2Mock({
    doGenerate: async (opts) => {
      const prompt = opts.prompt as MastraPrompt;
      seen.push(prompt);
      const last = prompt.at(-1)!;
      if (last.role === 'user') {
        const parts = last.content as Array<{ type: string; text?: string }>;
        const calls = plan(parts.map((p) => p.text ?? '').join(''));
        if (calls.length > 0)
          return {
            content: calls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.tool,
              input: JSON.stringify(c.args),
            })),
            finishReason: 'tool-calls' as const,
            usage,
            warnings: [],
          };
      }
      return {
        content: [{ type: 'text' as const, text: answer(prompt) }],
        finishReason: 'stop' as const,
        usage,
        warnings: [],
      };
    },
  });
  return Object.assign(model, { seen });
}
