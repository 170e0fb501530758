/**
 * The OpenAI Agents SDK's run items as the thread messages every Interlock thread keeps (the AI SDK's
 * message form: user and assistant text, `tool-call` and `tool-result` parts), and back. Reviewers see
 * an OpenAI thread's whole conversation — its calls and their results, not only inputs and answers —
 * and a later turn of the thread starts from that history instead of from nothing.
 */

type Item = Record<string, unknown> & { type?: string; role?: string };
type Part = Record<string, unknown> & { type: string };
/** A thread message in the AI SDK's form. */
export type ThreadMessage = { role: 'user' | 'assistant' | 'tool' | 'system'; content: string | Part[] };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: string; text?: string }>)
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join('');
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object' && 'text' in output) return String(output.text);
  if (Array.isArray(output)) return textOf(output);
  return JSON.stringify(output ?? null);
}

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return raw;
  }
}

/**
 * The SDK's input items (a run's `history` slice) as thread messages. Items without a counterpart
 * (reasoning, hosted tools) are left out: the thread keeps what a reviewer reads and what a later turn
 * needs to continue.
 */
export function toThreadMessages(items: readonly unknown[]): ThreadMessage[] {
  const out: ThreadMessage[] = [];
  const push = (role: 'assistant' | 'tool', part: Part) => {
    const last = out.at(-1);
    if (last?.role === role && Array.isArray(last.content)) last.content.push(part);
    else out.push({ role, content: [part] });
  };
  for (const raw of items) {
    const item = raw as Item;
    if (item.role === 'user' || item.role === 'system') {
      out.push({ role: item.role, content: [{ type: 'text', text: textOf(item.content) }] });
    } else if (item.role === 'assistant' && (item.type === undefined || item.type === 'message')) {
      const text = textOf(item.content);
      if (text) push('assistant', { type: 'text', text });
    } else if (item.type === 'function_call') {
      push('assistant', {
        type: 'tool-call',
        toolCallId: String(item.callId),
        toolName: String(item.name),
        input: parseArgs(item.arguments),
      });
    } else if (item.type === 'function_call_result') {
      push('tool', {
        type: 'tool-result',
        toolCallId: String(item.callId),
        toolName: String(item.name),
        output: { type: 'text', value: outputText(item.output) },
      });
    }
  }
  return out;
}

/** Thread messages as the SDK's input items, to start a later turn from the thread's history. */
export function toInputItems(messages: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const raw of messages) {
    const m = raw as ThreadMessage;
    const parts: Part[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
    if (m.role === 'user' || m.role === 'system') {
      out.push({ role: m.role, content: parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('') });
      continue;
    }
    for (const p of parts) {
      if (m.role === 'assistant' && p.type === 'text')
        out.push({
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: String(p.text) }],
        });
      else if (m.role === 'assistant' && p.type === 'tool-call')
        out.push({
          type: 'function_call',
          callId: String(p.toolCallId),
          name: String(p.toolName),
          arguments: JSON.stringify(p.input ?? {}),
          status: 'completed',
        });
      else if (m.role === 'tool' && p.type === 'tool-result')
        out.push({
          type: 'function_call_result',
          callId: String(p.toolCallId),
          name: String(p.toolName),
          status: 'completed',
          output: { type: 'text', text: outputText((p.output as { value?: unknown } | undefined)?.value) },
        });
    }
  }
  return out;
}
