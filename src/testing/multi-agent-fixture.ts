import type { PolicyConfig } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import { createAgent, type Agent } from '../agent/agent.ts';
import { agentTool, handoff } from '../agent/delegation.ts';
import { createGraph } from '../agent/graph.ts';
import type { Graph, GraphOptions } from '../agent/graph-types.ts';
import { z } from 'zod';
import type { FakePayments } from './fake-payments.ts';
import { scriptedModel, type ScriptedModel, type ScriptContext, type ScriptStep } from './scripted-model.ts';
import { supportPolicy, supportTools } from './support-fixture.ts';

/**
 * Trees of agents for tests, the example and the crash harness: a support agent that delegates
 * refunds to a refunds sub-agent, a triage agent that hands billing questions off, and a
 * maintenance graph `inspector → cleanup`. Models are scripted, so every run is offline and
 * its model calls are counted per agent.
 */

/** The support policy, plus the delegating tools: asking the refunds agent is auto, a handoff to billing needs a supervisor. */
export const treePolicy: PolicyConfig = {
  tools: {
    ...supportPolicy.tools,
    ask_refunds: [{ id: 'delegate', tier: 'auto', reason: 'the refunds agent is gated itself' }],
    transfer_to_billing: [
      { id: 'handoff', tier: 'approve', role: 'supervisor', timeout: '30m', reason: 'billing takes the customer over' },
    ],
    transfer_to_triage: [{ id: 'back', tier: 'auto', reason: 'handing back is always fine' }],
  },
};

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The refunds specialist: refunds what it is asked to (a "$N" in the task), then reports the result. */
export function refundsScript(ctx: ScriptContext): ScriptStep {
  const r = ctx.lastToolResults[0];
  if (r) {
    if (typeof r.output === 'string') return { text: `I could not refund it: ${r.output}` };
    return { text: `Refund done: ${show(r.output)}` };
  }
  const amount = Number(/\$(\d+)/.exec(ctx.lastUserText)?.[1] ?? 850);
  return { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-999', customerId: 'test-001', amount } }] };
}

/** The support agent: hands any refund to the refunds agent, then tells the customer what it said. */
export function supportTreeScript(ctx: ScriptContext): ScriptStep {
  const r = ctx.lastToolResults[0];
  if (r) return { text: `The refunds team says: ${show(r.output)}` };
  const amount = /\$(\d+)/.exec(ctx.lastUserText)?.[1] ?? '850';
  return {
    toolCalls: [{ name: 'ask_refunds', args: { input: `Refund $${amount} for ORD-999 (customer test-001).` } }],
  };
}

/** A support agent with a refunds sub-agent, each on its own scripted model. */
export function supportTree(
  il: Interlock,
  pay: FakePayments,
): { support: Agent; refunds: Agent; supportModel: ScriptedModel; refundsModel: ScriptedModel } {
  const refundsModel = scriptedModel(refundsScript, { recordPrompts: false });
  const supportModel = scriptedModel(supportTreeScript, { recordPrompts: false });
  const refunds = createAgent({
    name: 'refunds',
    version: '1.0.0',
    model: refundsModel,
    system: 'You issue refunds.',
    tools: supportTools(pay).filter((t) => t.name === 'issue_refund'),
    interlock: il,
  });
  const support = createAgent({
    name: 'support',
    version: '1.0.0',
    model: supportModel,
    system: 'You help customers; refunds go to the refunds agent.',
    tools: [agentTool(refunds, { name: 'ask_refunds', description: 'Ask the refunds specialist to refund an order.' })],
    interlock: il,
  });
  return { support, refunds, supportModel, refundsModel };
}

/** Triage hands the customer to billing (a gated handoff); billing refunds $40 and hands back. */
export function handoffPair(
  il: Interlock,
  pay: FakePayments,
): { triage: Agent; billing: Agent; triageModel: ScriptedModel; billingModel: ScriptedModel } {
  const triageModel = scriptedModel(
    (ctx) =>
      ctx.lastToolResults.length
        ? { text: `Triage again: ${show(ctx.lastToolResults[0]!.output)}` }
        : { toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'a billing question' } }] },
    { recordPrompts: true },
  );
  const billingModel = scriptedModel((ctx) => {
    const r = ctx.lastToolResults[0];
    if (r?.toolName === 'transfer_to_billing')
      return { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-1', customerId: 'test-001', amount: 40 } }] };
    return { text: `Billing here: refunded ${show(r?.output)}` };
  });
  const billing = createAgent({
    name: 'billing',
    version: '1.0.0',
    model: billingModel,
    system: 'You are billing.',
    tools: supportTools(pay).filter((t) => t.name === 'issue_refund'),
    interlock: il,
  });
  const triage = createAgent({
    name: 'triage',
    version: '1.0.0',
    model: triageModel,
    system: 'You route customers.',
    tools: [handoff(billing)],
    interlock: il,
  });
  return { triage, billing, triageModel, billingModel };
}

/** A fake file system the cleanup node deletes from, recording each deletion. */
export class FakeFiles {
  readonly files = new Set(['a.tmp', 'b.tmp', 'keep.txt']);
  readonly deleted: string[] = [];
  remove(names: string[]): string[] {
    const gone = names.filter((n) => this.files.delete(n));
    this.deleted.push(...gone);
    return gone;
  }
}

/**
 * The maintenance graph: `inspector` (an agent) finds stale files, `cleanup` (a function) deletes
 * them, and a `beforeNode` hook asks a supervisor before `cleanup` runs.
 */
export function cleanupGraph(
  il: Interlock,
  fs: FakeFiles,
  extra: Partial<GraphOptions> = {},
): { graph: Graph; inspectorModel: ScriptedModel; cleanupRuns: () => number } {
  const inspectorModel = scriptedModel(() => ({ text: [...fs.files].filter((f) => f.endsWith('.tmp')).join(',') }), {
    recordPrompts: false,
  });
  const inspector = createAgent({
    name: 'inspector',
    version: '1.0.0',
    model: inspectorModel,
    system: 'List stale files.',
    tools: [],
    interlock: il,
  });
  let runs = 0;
  const graph = createGraph({
    name: 'maintenance',
    version: '1.0.0',
    interlock: il,
    nodes: {
      inspector: { agent: inspector },
      cleanup: {
        input: z.string(),
        run: (input) => {
          runs++;
          return { deleted: fs.remove(String(input).split(',').filter(Boolean)) };
        },
      },
      // What the cleanup came to, as the next node sees it (a cancellation included).
      report: { run: (input) => ({ saw: input }) },
    },
    edges: [
      { from: 'inspector', to: 'cleanup' },
      { from: 'cleanup', to: 'report' },
    ],
    start: 'inspector',
    hooks: {
      beforeNode: [
        ({ node, input }, { interrupt }) => {
          if (node === 'cleanup')
            interrupt({ name: 'confirm_cleanup', reason: `Cleanup deletes ${show(input)}; confirm it.` });
        },
      ],
    },
    ...extra,
  });
  return { graph, inspectorModel, cleanupRuns: () => runs };
}
