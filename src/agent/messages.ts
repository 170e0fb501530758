/**
 * Conversation messages, in the shape of the Vercel AI SDK's language-model
 * prompt (system prompt kept apart), so they go to any provider unchanged.
 */
export type JsonValue = null | string | number | boolean | JsonValue[] | { [k: string]: JsonValue };

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
}
/** What a tool call gave back, as the model sees it. */
export type ToolOutput =
  { type: 'text'; value: string } | { type: 'json'; value: JsonValue } | { type: 'error-text'; value: string };
export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ToolOutput;
}

export type UserMessage = { role: 'user'; content: TextPart[] };
export type AssistantMessage = { role: 'assistant'; content: Array<TextPart | ToolCallPart> };
export type ToolMessage = { role: 'tool'; content: ToolResultPart[] };
/** A stored conversation message. */
export type Message = UserMessage | AssistantMessage | ToolMessage;

/** A user message from text. */
export function userMessage(text: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** The text parts of a message, joined. */
export function textOf(m: Message | undefined): string {
  if (!m) return '';
  return m.content
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('');
}
