import type { AssistantMessage, Message, TextPart, ToolCallPart } from './messages.ts';
import { InterlockSystemError } from '../core/index.ts';

/**
 * A language model in the Vercel AI SDK's provider interface (specification
 * v2, v3 or v4: every provider package, `@ai-sdk/openai`, `@ai-sdk/anthropic`…).
 * Only `doGenerate` is used.
 */
export interface LanguageModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: ModelCallOptions): PromiseLike<ModelResult>;
}

/** The options Interlock sends: prompt, tools, and nothing provider-specific. */
export interface ModelCallOptions {
  prompt: Array<{ role: 'system'; content: string } | Message>;
  tools?: Array<{ type: 'function'; name: string; description?: string; inputSchema: Record<string, unknown> }>;
  toolChoice?: { type: 'auto' };
  abortSignal?: AbortSignal;
}

/** The subset of a generate result Interlock reads. */
export interface ModelResult {
  content: Array<{ type: string; text?: string; toolCallId?: string; toolName?: string; input?: unknown }>;
  finishReason?: string | { unified: string };
  usage?: {
    inputTokens?: number | { total?: number | undefined } | undefined;
    outputTokens?: number | { total?: number | undefined } | undefined;
  };
}

/** A model's answer, normalized across specification versions. */
export interface ModelTurn {
  message: AssistantMessage;
  toolCalls: ToolCallPart[];
  usage: { inputTokens: number; outputTokens: number };
}

function tokens(v: number | { total?: number | undefined } | undefined): number {
  if (typeof v === 'number') return v;
  return v?.total ?? 0;
}

/** Call the model once and normalize its answer. */
export async function generate(model: LanguageModel, options: ModelCallOptions): Promise<ModelTurn> {
  const r = await model.doGenerate(options);
  const parts: Array<TextPart | ToolCallPart> = [];
  const toolCalls: ToolCallPart[] = [];
  for (const c of r.content) {
    if (c.type === 'text' && typeof c.text === 'string' && c.text.length > 0)
      parts.push({ type: 'text', text: c.text });
    else if (c.type === 'tool-call') {
      let input: unknown = c.input;
      if (typeof input === 'string') {
        try {
          input = input.trim() === '' ? {} : JSON.parse(input);
        } catch (err) {
          throw new InterlockSystemError(
            'model_bad_tool_input',
            `Model ${model.provider}:${model.modelId} sent tool input that is not JSON for ${c.toolName ?? '?'}.`,
            { cause: err },
          );
        }
      }
      const call: ToolCallPart = {
        type: 'tool-call',
        toolCallId: String(c.toolCallId),
        toolName: String(c.toolName),
        input,
      };
      parts.push(call);
      toolCalls.push(call);
    }
  }
  return {
    message: { role: 'assistant', content: parts },
    toolCalls,
    usage: { inputTokens: tokens(r.usage?.inputTokens), outputTokens: tokens(r.usage?.outputTokens) },
  };
}
