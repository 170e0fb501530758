/**
 * The benchmark's workload, shared by every suite and mirrored by the LangGraph.js
 * peer: a support conversation in which, every turn, the assistant proposes a
 * gated `issue_refund` (one pause per turn). Messages are ~500 bytes; the model
 * is scripted (no network). A turn is four messages: user, assistant (text +
 * tool call), tool result, assistant.
 */
import { z } from 'zod';
import {
  createAgent,
  createInterlock,
  tool,
  type Agent,
  type Interlock,
  type PolicyConfig,
  type Store,
} from '../../src/index.ts';
import { scriptedModel, type ScriptContext, type ScriptStep } from '../../src/testing/index.ts';

/** Roughly 500 bytes of prose; `tag` makes each message distinct. */
export function prose(tag: string, bytes = 500): string {
  const base = `${tag}: I bought the standing desk in March and it arrived with a cracked leg and a missing bolt kit. `;
  let out = base;
  while (out.length < bytes)
    out += 'The support page said a refund to the original card takes three to five business days once approved. ';
  return out.slice(0, bytes);
}

export const REVIEWER = { id: 'rev_bench', roles: ['supervisor'] } as const;

/** `gated`: every refund pauses for a supervisor. `auto`: every refund runs alone. */
export type Mode = 'gated' | 'auto';

export function benchPolicy(): PolicyConfig {
  return {
    tools: {
      issue_refund: [
        { id: 'small', tier: 'auto', reason: 'refunds up to $500 run alone' },
        {
          id: 'large',
          tier: 'approve',
          role: 'supervisor',
          timeout: '24h',
          reason: 'refund over $500',
          when: ({ args }) => Number(args.amount) > 500,
        },
      ],
    },
  };
}

/** The amount the model asks for: over the threshold when gated. */
export function amountFor(mode: Mode): number {
  return mode === 'gated' ? 850 : 120;
}

/** The refund tool's result: ~500 bytes of JSON. */
export function refundResult(orderId: string, amount: number, key: string): Record<string, unknown> {
  return {
    refundId: `rf_${orderId}`,
    orderId,
    amount,
    currency: 'USD',
    status: 'succeeded',
    idempotencyKey: key,
    note: prose('receipt', 330),
  };
}

/**
 * The scripted model: after a user message, text plus one `issue_refund` call;
 * after the tool result, a closing text. `calls` tool calls per turn (suite 2 uses more).
 */
export function script(mode: Mode, callsPerTurn = 1): (ctx: ScriptContext) => ScriptStep {
  return (ctx) => {
    const last = ctx.messages[ctx.messages.length - 1];
    const turn = ctx.messages.filter((m) => m.role === 'user').length;
    if (last?.role === 'user') {
      return {
        text: prose(`assistant-${turn}`, 440),
        toolCalls: Array.from({ length: callsPerTurn }, (_, i) => ({
          name: 'issue_refund',
          args: { orderId: `ORD-${turn}-${i}`, amount: amountFor(mode) },
        })),
      };
    }
    return { text: prose(`assistant-final-${turn}`) };
  };
}

export interface InterlockRig {
  store: Store;
  interlock: Interlock;
  agent: Agent;
  /** Side effects performed, by idempotency key (a double execution shows up as a count of 2). */
  effects: Map<string, number>;
}

/** The engine and the agent over `store`, running the workload. */
export function interlockRig(store: Store, mode: Mode, callsPerTurn = 1): InterlockRig {
  const interlock = createInterlock({ store, policy: benchPolicy() });
  const effects = new Map<string, number>();
  const issueRefund = tool({
    name: 'issue_refund',
    description: 'Refund an order to the original payment method',
    schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
    execute: async ({ orderId, amount }, { idempotencyKey }) => {
      effects.set(idempotencyKey, (effects.get(idempotencyKey) ?? 0) + 1);
      return refundResult(orderId, amount, idempotencyKey);
    },
  });
  const agent = createAgent({
    name: 'support',
    version: '1.0.0',
    model: scriptedModel(script(mode, callsPerTurn)),
    system: 'You help customers of Acme with orders and refunds.',
    tools: [issueRefund],
    interlock,
    maxIterations: 1_000_000,
  });
  return { store, interlock, agent, effects };
}

/** One turn up to its pause; returns the interrupt id. */
export async function interlockPause(rig: InterlockRig, threadId: string, turn: number): Promise<string> {
  const r = await rig.agent.invoke(prose(`user-${turn}`), { threadId });
  const id = r.interrupts[0]?.id;
  if (r.stopReason !== 'interrupt' || !id) throw new Error(`expected a pause, got ${r.stopReason}`);
  return id;
}

/** Approve the interrupt in-process and run the turn to its end. */
export async function interlockResume(rig: InterlockRig, threadId: string, interruptId: string): Promise<void> {
  const r = await rig.agent.invoke(null, {
    threadId,
    responses: { [interruptId]: { type: 'approve' } },
    reviewer: REVIEWER,
  });
  if (r.stopReason !== 'end_turn') throw new Error(`expected end_turn, got ${r.stopReason}`);
}
