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

/**
 * Claude's tool calls of a turn (the main session's and sub-agents') that ran: a `tool_use` whose
 * `tool_result` is not an error. Each of them must have passed the hook; a call Claude Code refused
 * itself (a settings deny rule is checked before hooks) did not run.
 */
export function toolsThatRan(messages: readonly SDKMessage[]): Array<{ id: string; name: string }> {
  const calls: Array<{ id: string; name: string }> = [];
  const failed = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if ((m.type !== 'assistant' && m.type !== 'user') || !Array.isArray(m.message.content)) continue;
    for (const b of m.message.content as Array<Block & { is_error?: boolean }>) {
      if (m.type === 'assistant' && b.type === 'tool_use' && b.id) calls.push({ id: b.id, name: b.name ?? '' });
      if (m.type === 'user' && b.type === 'tool_result' && b.tool_use_id) {
        answered.add(b.tool_use_id);
        if (b.is_error) failed.add(b.tool_use_id);
      }
    }
  }
  return calls.filter((c) => answered.has(c.id) && !failed.has(c.id));
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
