import { randomBytes } from 'node:crypto';
import type { ApprovalRequest } from '../../core/index.ts';
import type { Interlock, RunnerInterrupt } from '../../engine/index.ts';

/** A lease owner for one run: unique, so two runs in one process never share a thread's lease. */
export function runOwner(il: Interlock): string {
  return `${il.owner}:run:${randomBytes(4).toString('hex')}`;
}

/** The pauses of a run as the service, CLI and applications see them. */
export function interruptsOf(requests: readonly ApprovalRequest[]): RunnerInterrupt[] {
  return requests.map((r) => ({
    id: r.id,
    name: r.tool,
    tier: r.tier,
    role: r.role,
    toolCallId: r.toolCallId,
    message: `I've asked a ${r.role} to review this ${r.tool.replace(/_/g, ' ')} before it runs (${r.reason}).`,
  }));
}

/** The last assistant text of a list of framework messages (AI SDK model messages or similar). */
export function lastText(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m?.role !== 'assistant') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const text = m.content
        .filter((p: { type?: string }) => p?.type === 'text')
        .map((p: { text?: string }) => p.text ?? '')
        .join('');
      if (text) return text;
    }
  }
  return '';
}
