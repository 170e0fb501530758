import type { ModelMessage } from 'ai';

/** What a message says for matching a client's copy against the saved one (ids and text, not metadata). */
function gist(m: ModelMessage): string {
  const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Part[]);
  const said = parts.flatMap((p) => {
    const q = p as Part & { text?: string };
    if (q.type === 'text') return q.text ? [`t:${q.text}`] : [];
    if (q.type === 'tool-call' || q.type === 'tool-result') return [`${q.type}:${q.toolCallId}`];
    return [];
  });
  return `${m.role}|${said.join('|')}`;
}

/**
 * The messages of `given` that are new: when it starts with the saved conversation (a chat client
 * sending all of it), the rest; otherwise all of it (a client sending only what is new).
 */
export function newPart(saved: readonly ModelMessage[], given: ModelMessage[]): ModelMessage[] {
  const told = saved.filter((m) => gist(m) !== `${m.role}|`);
  const sent = given.filter((m) => gist(m) !== `${m.role}|`);
  if (told.length === 0 || sent.length <= told.length) return given;
  for (let i = 0; i < told.length; i++) if (gist(told[i]!) !== gist(sent[i]!)) return given;
  // Everything after the last message that matched the saved conversation.
  const last = sent[told.length - 1]!;
  return given.slice(given.indexOf(last) + 1);
}

export type Part = { type: string; toolCallId?: string; approvalId?: string; toolName?: string };

/** Whether the call's own tool-call part is in `messages` (the SDK re-checking an approval from the history). */
export function inHistory(messages: readonly ModelMessage[], toolCallId: string): boolean {
  return messages.some(
    (m) =>
      m.role === 'assistant' &&
      typeof m.content !== 'string' &&
      (m.content as Part[]).some((p) => p.type === 'tool-call' && p.toolCallId === toolCallId),
  );
}
