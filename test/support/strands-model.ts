import { Model, type Message, type ModelStreamEvent } from '@strands-agents/sdk';

/** A tool use the fake model proposes: the call id it gives, the tool and its input. */
export interface FakeToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What the fake model answers a conversation with: tool uses (one step) or a text. */
export type FakeReply = FakeToolUse[] | string;

/**
 * A Strands model provider that runs offline: it implements the SDK's `Model` interface and streams
 * the SDK's own events (message start, tool-use blocks with their JSON input, text deltas, stop) for
 * whatever `reply` returns for the conversation so far.
 */
export class FakeStrandsModel extends Model<{ modelId?: string }> {
  readonly seen: Message[][] = [];
  private config: { modelId?: string } = { modelId: 'fake-strands-model' };
  private readonly reply: (messages: Message[]) => FakeReply | Promise<FakeReply>;

  constructor(reply: (messages: Message[]) => FakeReply | Promise<FakeReply>) {
    super();
    this.reply = reply;
  }

  updateConfig(config: { modelId?: string }): void {
    this.config = { ...this.config, ...config };
  }

  getConfig(): { modelId?: string } {
    return this.config;
  }

  async *stream(messages: Message[]): AsyncGenerator<ModelStreamEvent> {
    this.seen.push([...messages]);
    const reply = await this.reply(messages);
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    if (typeof reply === 'string') {
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: reply } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
      return;
    }
    for (const use of reply) {
      yield { type: 'modelContentBlockStartEvent', start: { type: 'toolUseStart', name: use.name, toolUseId: use.id } };
      yield {
        type: 'modelContentBlockDeltaEvent',
        delta: { type: 'toolUseInputDelta', input: JSON.stringify(use.input) },
      };
      yield { type: 'modelContentBlockStopEvent' };
    }
    yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
  }
}

/** The text of a message (its text blocks), empty for tool results. */
export function textOf(message: Message | undefined): string {
  return (message?.content ?? []).map((b) => (b.type === 'textBlock' ? b.text : '')).join('');
}

/** Whether the conversation ends on a user's text (not on tool results): the model's turn to plan. */
export function userTurn(messages: Message[]): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const text = textOf(last);
  return text && !last.content.some((b) => b.type === 'toolResultBlock') ? text : undefined;
}
