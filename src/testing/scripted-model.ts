import type { LanguageModel, ModelCallOptions, ModelResult } from '../agent/model.ts';
import type { Message } from '../agent/messages.ts';

/** One scripted model answer. */
export interface ScriptStep {
  text?: string;
  toolCalls?: Array<{ name: string; args: Record<string, unknown>; id?: string }>;
  usage?: { inputTokens: number; outputTokens: number };
}

/** What a script function sees of the conversation. */
export interface ScriptContext {
  messages: Message[];
  system: string;
  /** Text of the last user message. */
  lastUserText: string;
  /** Results of the last tool message, by tool name (text or JSON). */
  lastToolResults: Array<{ toolName: string; toolCallId: string; output: unknown; isError: boolean }>;
  /** How many times the model was called before this call. */
  call: number;
}

/** A deterministic model for tests and offline demos; counts its calls. */
export interface ScriptedModel extends LanguageModel {
  readonly calls: number;
  /** Prompts received, in order (empty when created with `recordPrompts: false`). */
  readonly prompts: ModelCallOptions['prompt'][];
}

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  /**
   * Keep every prompt in `prompts`, for assertions (default true). A model
   * serving a long-running process (an offline demo, a load test) passes
   * false: recorded prompts hold every conversation in memory for good.
   */
  recordPrompts?: boolean;
}

/**
 * A language model that answers from a script: a list of steps (one per call)
 * or a function of the conversation. Implements the AI SDK provider interface,
 * so it drops in wherever a real model goes.
 * @example
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-999', amount: 850 } }] },
 *   { text: 'Your refund is on its way.' },
 * ]);
 */
export function scriptedModel(
  script: ScriptStep[] | ((ctx: ScriptContext) => ScriptStep),
  opts: ScriptedModelOptions = {},
): ScriptedModel {
  const record = opts.recordPrompts !== false;
  let calls = 0;
  const prompts: ModelCallOptions['prompt'][] = [];
  return {
    specificationVersion: 'v4',
    provider: 'interlock.scripted',
    modelId: 'scripted',
    get calls() {
      return calls;
    },
    prompts,
    async doGenerate(options: ModelCallOptions): Promise<ModelResult> {
      const n = calls++;
      if (record) prompts.push(options.prompt);
      const messages = options.prompt.filter((m): m is Message => m.role !== 'system');
      let step: ScriptStep | undefined;
      if (typeof script === 'function') {
        const lastUser = [...messages].reverse().find((m) => m.role === 'user');
        const last = messages[messages.length - 1];
        step = script({
          messages,
          system: options.prompt[0]?.role === 'system' ? options.prompt[0].content : '',
          lastUserText: lastUser ? lastUser.content.map((p) => p.text).join('') : '',
          lastToolResults:
            last?.role === 'tool'
              ? last.content.map((p) => ({
                  toolName: p.toolName,
                  toolCallId: p.toolCallId,
                  output: p.output.value,
                  isError: p.output.type === 'error-text',
                }))
              : [],
          call: n,
        });
      } else {
        step = script[n];
        if (!step)
          throw new Error(
            `scriptedModel: no step ${n + 1} in a script of ${script.length}; add a step or use a function script.`,
          );
      }
      const content: ModelResult['content'] = [];
      if (step.text) content.push({ type: 'text', text: step.text });
      (step.toolCalls ?? []).forEach((c, i) =>
        content.push({
          type: 'tool-call',
          toolCallId: c.id ?? `call_${n}_${i}`,
          toolName: c.name,
          input: JSON.stringify(c.args),
        }),
      );
      return {
        content,
        finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop' },
        usage: {
          inputTokens: { total: step.usage?.inputTokens ?? 100 },
          outputTokens: { total: step.usage?.outputTokens ?? 20 },
        },
      };
    },
  };
}
