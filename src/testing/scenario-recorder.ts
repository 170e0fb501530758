import type { LanguageModel, ModelCallOptions } from '../agent/model.ts';
import { ToolInterrupt, type Tool } from '../agent/tool.ts';

/** One call of a tool's `execute`, as the scenario harness saw it. */
export interface ToolRun {
  tool: string;
  args: Record<string, unknown>;
  toolCallId: string;
  idempotencyKey: string;
  attempt: number;
  /**
   * `returned` or `threw`: the body ran (its side effect may have happened).
   * `interrupted`: it stopped at `context.interrupt(...)` to ask a person, which by
   * contract comes before any side effect; it does not count as a run.
   */
  outcome: 'returned' | 'threw' | 'interrupted';
  result?: unknown;
  error?: string;
}

/** A prompt the model received: the system prompt and the conversation. */
export type ModelPrompt = ModelCallOptions['prompt'];

/** True for runs whose body went past every interrupt (the side effect may have happened). */
export function ran(r: ToolRun): boolean {
  return r.outcome !== 'interrupted';
}

/**
 * The same tools, recording each `execute` into `runs`: the harness counts
 * executions itself, so its expectations hold whatever the tools call.
 */
export function recordTools(tools: readonly Tool[], runs: ToolRun[]): Tool[] {
  return tools.map((t) => ({
    ...t,
    async execute(args, ctx) {
      const run: ToolRun = {
        tool: t.name,
        args: structuredClone(args),
        toolCallId: ctx.toolCallId,
        idempotencyKey: ctx.idempotencyKey,
        attempt: ctx.attempt,
        outcome: 'returned',
      };
      try {
        run.result = await t.execute(args, ctx);
        return run.result;
      } catch (err) {
        run.outcome = err instanceof ToolInterrupt ? 'interrupted' : 'threw';
        if (run.outcome === 'threw') run.error = err instanceof Error ? err.message : String(err);
        throw err;
      } finally {
        runs.push(run);
      }
    },
  }));
}

/** The same model, recording a copy of every prompt into `prompts`. */
export function recordModel(model: LanguageModel, prompts: ModelPrompt[]): LanguageModel {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    doGenerate(options) {
      prompts.push(structuredClone(options.prompt));
      return model.doGenerate(options);
    },
  };
}

/**
 * Tool calls in a prompt that are not answered: every assistant tool call must
 * be followed, in the next message, by a tool message holding its result.
 */
export function unansweredToolCalls(prompt: ModelPrompt): Array<{ toolCallId: string; toolName: string; at: number }> {
  const missing: Array<{ toolCallId: string; toolName: string; at: number }> = [];
  prompt.forEach((m, at) => {
    if (m.role !== 'assistant') return;
    const next = prompt[at + 1];
    const answered = new Set(next?.role === 'tool' ? next.content.map((p) => p.toolCallId) : []);
    for (const p of m.content)
      if (p.type === 'tool-call' && !answered.has(p.toolCallId))
        missing.push({ toolCallId: p.toolCallId, toolName: p.toolName, at });
  });
  return missing;
}
