import type { ApprovalRequest } from '../core/index.ts';
import type { GraphTask, NodeAnswer, NodeInterruptRequest } from './graph-types.ts';
import { userFacing } from './new-waits.ts';
import type { Wait } from './state.ts';
import type { Interrupt } from './types.ts';
import type { WaitOutcome } from './waits.ts';

/** What a graph run makes of answers and waits: node questions, their answers, interrupts, texts. */

/** Stops the `beforeNode` hooks at a question nobody answered yet. */
export class NodeQuestion extends Error {
  readonly request: NodeInterruptRequest;
  constructor(request: NodeInterruptRequest) {
    super(`node interrupt: ${request.name}`);
    this.request = request;
  }
}

/** A reviewer's reject or respond: the node's fate is settled, the remaining hooks are not asked. */
export class NodeSettled extends Error {
  readonly answer: NodeAnswer;
  constructor(answer: NodeAnswer) {
    super('node settled');
    this.answer = answer;
  }
}

/** What a decision on a `beforeNode` question means for the node. */
export function nodeAnswerOf(o: Exclude<WaitOutcome, { state: 'pending' }>): NodeAnswer {
  switch (o.state) {
    case 'approved':
      return o.edited ? { type: 'edit', by: o.by, input: o.args.input } : { type: 'approve', by: o.by };
    case 'rejected':
      return { type: 'reject', by: o.by, message: o.message ?? 'A reviewer rejected this step.' };
    case 'responded':
      return { type: 'respond', by: o.by, message: o.message };
    case 'expired':
      return { type: 'reject', by: 'system:timeout', message: 'No reviewer decided before the deadline.' };
    default:
      return { type: 'reject', by: 'system', message: 'The question was cancelled.' };
  }
}

export function toInterrupt(w: Wait, r: ApprovalRequest, path: string[]): Interrupt {
  return {
    id: r.id,
    kind: w.kind,
    name: w.name,
    reason: r.reason,
    args: r.args,
    tier: r.tier,
    role: r.role,
    approvalsRequired: r.approvalsRequired,
    expiresAt: r.expiresAt,
    message: userFacing(w.kind, r),
    path,
  };
}

/** The output of the nodes that ran last, as text: one node's as it is, several by node name. */
export function textOfTasks(tasks: GraphTask[]): string {
  const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (tasks.length === 1) return show(tasks[0]!.output);
  return tasks.map((t) => `${t.node}: ${show(t.output)}`).join('\n');
}
