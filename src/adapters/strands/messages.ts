/**
 * The Strands agent's messages as the thread messages every Interlock thread keeps (the AI SDK's
 * message form: user and assistant text, `tool-call` and `tool-result` parts). Reviewers see a Strands
 * thread's whole conversation — its calls and their results, not only inputs and answers.
 */
type Part = Record<string, unknown> & { type: string };
/** A thread message in the AI SDK's form. */
export type ThreadMessage = { role: 'user' | 'assistant' | 'tool'; content: Part[] };

/** A Strands message as `Message.toJSON()` gives it. */
interface StrandsMessageData {
  role: 'user' | 'assistant';
  content: Array<Record<string, unknown>>;
}

interface ToolUseData {
  name: string;
  toolUseId: string;
  input?: unknown;
}
interface ToolResultData {
  toolUseId: string;
  status?: string;
  content?: Array<{ text?: string; json?: unknown }>;
}

/** What a tool result says, as text. */
function resultText(r: ToolResultData): string {
  return (r.content ?? [])
    .map((c) => (typeof c.text === 'string' ? c.text : JSON.stringify(c.json ?? null)))
    .join('\n');
}

/** Strands messages (their JSON form) as thread messages; blocks without a counterpart (images, reasoning) are left out. */
export function toThreadMessages(messages: readonly unknown[]): ThreadMessage[] {
  const names = new Map<string, string>();
  const out: ThreadMessage[] = [];
  for (const raw of messages) {
    const m = raw as StrandsMessageData;
    const said: Part[] = [];
    const results: Part[] = [];
    for (const block of m.content ?? []) {
      if (typeof block.text === 'string') said.push({ type: 'text', text: block.text });
      else if (block.toolUse) {
        const u = block.toolUse as ToolUseData;
        names.set(u.toolUseId, u.name);
        said.push({ type: 'tool-call', toolCallId: u.toolUseId, toolName: u.name, input: u.input ?? {} });
      } else if (block.toolResult) {
        const r = block.toolResult as ToolResultData;
        results.push({
          type: 'tool-result',
          toolCallId: r.toolUseId,
          toolName: names.get(r.toolUseId) ?? 'tool',
          output: { type: r.status === 'error' ? 'error-text' : 'text', value: resultText(r) },
        });
      }
    }
    if (said.length) out.push({ role: m.role === 'assistant' ? 'assistant' : 'user', content: said });
    if (results.length) out.push({ role: 'tool', content: results });
  }
  return out;
}
