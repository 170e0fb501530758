/**
 * LangChain messages as the thread messages every Interlock thread keeps (the AI SDK's message form),
 * so reviewers read a LangChain thread's conversation — the user's words, the model's calls, their
 * results — on the thread page, as for any other thread.
 */

type LcMessage = {
  getType(): string;
  content: unknown;
  tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  tool_call_id?: string;
  name?: string;
};
type Part = Record<string, unknown> & { type: string };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: string; text?: string }>)
    .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

/** A graph's messages (LangChain `BaseMessage`s) as thread messages; others are left out. */
export function toThreadMessages(messages: readonly unknown[]): Array<{ role: string; content: Part[] }> {
  const out: Array<{ role: string; content: Part[] }> = [];
  for (const raw of messages) {
    const m = raw as LcMessage;
    if (typeof m?.getType !== 'function') continue;
    const type = m.getType();
    const text = textOf(m.content);
    if (type === 'human') out.push({ role: 'user', content: [{ type: 'text', text }] });
    else if (type === 'system') out.push({ role: 'system', content: [{ type: 'text', text }] });
    else if (type === 'ai') {
      const parts: Part[] = text ? [{ type: 'text', text }] : [];
      for (const tc of m.tool_calls ?? [])
        parts.push({ type: 'tool-call', toolCallId: tc.id ?? '', toolName: tc.name, input: tc.args });
      if (parts.length) out.push({ role: 'assistant', content: parts });
    } else if (type === 'tool') {
      out.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: m.tool_call_id ?? '',
            toolName: m.name ?? '',
            output: { type: 'text', value: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) },
          },
        ],
      });
    }
  }
  return out;
}

/**
 * Whether an earlier model turn of the conversation already used this call id. Interlock finds a
 * call's request by thread and call id, so a reused id would be answered with the earlier call's
 * outcome: such a call is refused instead, visibly. (A paused step resumed is the same turn.)
 */
export function reusedCallId(messages: readonly unknown[] | undefined, id: string): boolean {
  let turns = 0;
  for (const m of messages ?? []) {
    const ai = m as { getType?: () => string; tool_calls?: Array<{ id?: string }> };
    if (ai.getType?.() === 'ai' && ai.tool_calls?.some((tc) => tc.id === id)) turns++;
  }
  return turns > 1;
}
