import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { DecidedCall } from './types.ts';

type Part = Record<string, unknown> & { type: string };
/** A thread message in the form every Interlock thread keeps (the AI SDK's: text, `tool-call` and `tool-result` parts). */
export type ThreadMessage = { role: 'user' | 'assistant' | 'tool'; content: Part[] };

type Block = {
  type?: string;
  id?: string;
  name?: string;
  input?: unknown;
  text?: string;
  tool_use_id?: string;
  content?: unknown;
};

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? null);
  return (content as Block[]).map((b) => (typeof b.text === 'string' ? b.text : '')).join('');
}

/**
 * A turn of the main session (sub-agents' messages left out) as thread messages: what reviewers read
 * in the UI, API and CLI — the prompt, Claude's text and tool calls, their results.
 */
export function toThreadMessages(prompt: string, messages: readonly SDKMessage[]): ThreadMessage[] {
  const out: ThreadMessage[] = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
  const names = new Map<string, string>();
  const push = (role: 'assistant' | 'tool', part: Part) => {
    const last = out.at(-1);
    if (last?.role === role) last.content.push(part);
    else out.push({ role, content: [part] });
  };
  for (const m of messages) {
    if ((m.type !== 'assistant' && m.type !== 'user') || m.parent_tool_use_id) continue;
    const content = m.message.content as unknown;
    if (!Array.isArray(content)) continue;
    for (const b of content as Block[]) {
      if (m.type === 'assistant' && b.type === 'text' && b.text) push('assistant', { type: 'text', text: b.text });
      else if (m.type === 'assistant' && b.type === 'tool_use' && b.id && b.name) {
        names.set(b.id, b.name);
        push('assistant', { type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input ?? {} });
      } else if (m.type === 'user' && b.type === 'tool_result' && b.tool_use_id)
        push('tool', {
          type: 'tool-result',
          toolCallId: b.tool_use_id,
          toolName: names.get(b.tool_use_id) ?? '',
          output: { type: 'text', value: resultText(b.content) },
        });
    }
  }
  return out;
}

/** Claude's tool_use blocks of a turn (the main session's and sub-agents'): every one must have passed the hook. */
export function toolUses(messages: readonly SDKMessage[]): Array<{ id: string; name: string }> {
  const out: Array<{ id: string; name: string }> = [];
  for (const m of messages) {
    if (m.type !== 'assistant' || !Array.isArray(m.message.content)) continue;
    for (const b of m.message.content as Block[])
      if (b.type === 'tool_use' && b.id) out.push({ id: b.id, name: b.name ?? '' });
  }
  return out;
}

/**
 * The user message `resume` continues the session with: per call that waited, what was decided. An
 * approved call is to be made again with the arguments it was approved for (the hook lets that call
 * through once, with a reviewer's edit applied); one that did not run gets the reviewer's words.
 */
export function resumePrompt(decided: readonly DecidedCall[]): string {
  const lines = decided.map((d) => {
    const call = `${d.tool} ${JSON.stringify(d.args)}`;
    if (d.state === 'approved') return `- ${call}: approved. Call it again now with exactly these arguments.`;
    if (d.state === 'pending') return `- ${call}: still waiting for a reviewer; do not call it yet.`;
    return `- ${call}: not run. ${d.message ?? ''} Do not call it again.`;
  });
  return ['Interlock: reviewers decided on the tool calls that waited for approval.', ...lines].join('\n');
}
