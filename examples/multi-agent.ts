// Interrupts across agents, offline with scripted models:
// 1. a graph `inspector → cleanup` where `cleanup` needs a person's approval before it runs;
// 2. a support agent that delegates refunds to a refunds sub-agent, whose $850 refund pauses the
//    whole tree, is approved, and completes once.
// Run: node examples/multi-agent.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  agentTool,
  createAgent,
  createGraph,
  createInterlock,
  createSqliteStore,
  createWorker,
  tool,
} from '../src/index.ts';
import { scriptedModel } from '../src/testing/index.ts';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'interlock-')), 'demo.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: {
    tools: {
      ask_refunds: [{ id: 'delegate', tier: 'auto', reason: 'the refunds agent is gated itself' }],
      issue_refund: [
        { id: 'small', tier: 'auto', reason: 'refunds up to $500 run alone' },
        {
          id: 'large',
          tier: 'approve',
          role: 'supervisor',
          reason: 'refund over $500',
          when: ({ args }) => Number(args.amount) > 500,
        },
      ],
    },
  },
});
const sam = { id: 'sam', roles: ['supervisor'] };
const approve = async (id: string) => {
  const r = await interlock.getRequestOrThrow(id);
  await interlock.decide(id, { type: 'approve', expectedVersion: r.version, actionHash: r.actionHash }, sam);
};

// --- 1. A graph: the inspector (an agent) lists stale files; cleanup (a function) deletes them.
const files = new Set(['a.tmp', 'b.tmp', 'notes.txt']);
let cleanupRuns = 0;
const inspectorModel = scriptedModel(() => ({ text: [...files].filter((f) => f.endsWith('.tmp')).join(',') }));
const inspector = createAgent({
  name: 'inspector',
  version: '1.0.0',
  model: inspectorModel,
  system: 'List stale files.',
  tools: [],
  interlock,
});
const maintenance = createGraph({
  name: 'maintenance',
  version: '1.0.0',
  interlock,
  nodes: {
    inspector: { agent: inspector },
    cleanup: {
      input: z.string(), // a reviewer's edit of the input is checked against it
      run: (input) => {
        cleanupRuns++;
        const names = String(input).split(',');
        for (const n of names) files.delete(n);
        return `deleted ${names.join(', ')}`;
      },
    },
  },
  edges: [{ from: 'inspector', to: 'cleanup' }],
  start: 'inspector',
  hooks: {
    beforeNode: [
      ({ node, input }, { interrupt }) => {
        if (node === 'cleanup') interrupt({ name: 'confirm_cleanup', reason: `Cleanup deletes ${String(input)}.` });
      },
    ],
  },
});

const g1 = await maintenance.invoke('check the disk', { threadId: 'graph_1' });
const q = g1.interrupts[0]!;
console.log(`graph: ${g1.stopReason} - ${q.name} at ${q.path!.join(' › ')} (${q.reason})`);
console.log(`graph: inspector found ${String(g1.outputs.inspector)}; cleanup runs so far: ${cleanupRuns}`);
await approve(q.id);

// --- 2. A tree: support hands refunds to the refunds sub-agent, which runs on a child thread.
let refunds = 0;
const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an order',
  schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  execute: async ({ amount }) => ({ refundId: `rf_${++refunds}`, amount }),
});
const refundsModel = scriptedModel((ctx) =>
  ctx.lastToolResults.length
    ? { text: `Refunded: ${JSON.stringify(ctx.lastToolResults[0]!.output)}` }
    : { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-999', amount: 850 } }] },
);
const refundsAgent = createAgent({
  name: 'refunds',
  version: '1.0.0',
  model: refundsModel,
  system: 'You issue refunds.',
  tools: [issueRefund],
  interlock,
});
const supportModel = scriptedModel((ctx) =>
  ctx.lastToolResults.length
    ? { text: `All set. The refunds team said: ${String(ctx.lastToolResults[0]!.output)}` }
    : { toolCalls: [{ name: 'ask_refunds', args: { input: 'Refund $850 for ORD-999.' } }] },
);
const support = createAgent({
  name: 'support',
  version: '1.0.0',
  model: supportModel,
  system: 'You help customers; the refunds agent does refunds.',
  tools: [
    agentTool(refundsAgent, { name: 'ask_refunds', description: 'Ask the refunds specialist to refund an order.' }),
  ],
  interlock,
});

const t1 = await support.invoke('I want my $850 back for ORD-999', { threadId: 'tree_1' });
const r = t1.interrupts[0]!;
console.log(`tree: ${t1.stopReason} - ${r.name} ${JSON.stringify(r.args)} at ${r.path!.join(' › ')}`);
console.log(`tree: root thread ${(await store.getThread('tree_1'))!.status}, refunds so far: ${refunds}`);
await approve(r.id);

// The worker resumes both after the decisions, as it would in another process: it knows the roots.
const worker = createWorker({ interlock, agents: [maintenance, support], sweepMs: 0 });
await worker.runOnce();

const g2 = await maintenance.resume('graph_1');
console.log(`graph: ${(await store.getThread('graph_1'))!.status} - ${String(g2.outputs.cleanup)}`);
console.log(`graph: cleanup runs ${cleanupRuns}, inspector model calls ${inspectorModel.calls}`);
console.log(
  `tree: ${(await store.getThread('tree_1'))!.status} - ${(await support.messages('tree_1')).length} messages`,
);
const last = (await support.messages('tree_1')).at(-1)!;
console.log(`tree: ${last.content.map((p) => ('text' in p ? p.text : '')).join('')}`);
console.log(`refunds paid: ${refunds}; model calls: support ${supportModel.calls}, refunds ${refundsModel.calls}`);
await store.close();
