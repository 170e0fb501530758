// A consumer's plain-JavaScript agent script: one refund paused, approved, and run once, on SQLite.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { agentTool, createAgent, createGraph, createInterlock, createSqliteStore, tool } from 'interlock-approvals';
import { scriptedModel } from 'interlock-approvals/testing';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'il-consumer-')), 'interlock.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: {
    tools: {
      issue_refund: [
        {
          id: 'large',
          tier: 'approve',
          role: 'supervisor',
          reason: 'refund over $100',
          when: ({ args }) => args.amount > 100,
        },
        { id: 'small', tier: 'auto', reason: 'small' },
      ],
      ask_support: [{ id: 'delegate', tier: 'auto', reason: 'the support agent is gated itself' }],
    },
  },
});
const ran = [];
const refund = tool({
  name: 'issue_refund',
  description: 'Refund an order',
  schema: z.object({ orderId: z.string(), amount: z.number() }),
  execute: async (args, { idempotencyKey }) => (ran.push({ ...args, idempotencyKey }), { ok: true }),
});
const model = scriptedModel([
  { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-1', amount: 850 } }] },
  { text: 'Refunded.' },
]);
const agent = createAgent({ name: 'support', version: '1', model, system: 'help', tools: [refund], interlock });

const paused = await agent.invoke('refund ORD-1', { threadId: 'consumer-1' });
const request = await interlock.getRequestOrThrow(paused.interrupts[0].id);
await interlock.decide(
  request.id,
  { type: 'approve', expectedVersion: request.version, actionHash: request.actionHash },
  { id: 'sam', roles: ['supervisor'] },
);
const done = await agent.resume('consumer-1');

// A tree: the desk agent delegates to a support sub-agent, whose refund pauses the whole tree.
const sub = createAgent({
  name: 'support-sub',
  version: '1',
  model: scriptedModel([
    { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-2', amount: 300 } }] },
    { text: 'Sub done.' },
  ]),
  system: 'help',
  tools: [refund],
  interlock,
});
const desk = createAgent({
  name: 'desk',
  version: '1',
  model: scriptedModel((ctx) =>
    ctx.lastToolResults.length
      ? { text: `Desk: ${ctx.lastToolResults[0].output}` }
      : { toolCalls: [{ name: 'ask_support', args: { input: 'refund ORD-2' } }] },
  ),
  system: 'route',
  tools: [agentTool(sub, { name: 'ask_support', description: 'the support agent' })],
  interlock,
});
const treePaused = await desk.invoke('refund ORD-2', { threadId: 'consumer-tree' });
const treeDone = await desk.invoke(null, {
  threadId: 'consumer-tree',
  responses: { [treePaused.interrupts[0].id]: { type: 'approve' } },
  reviewer: { id: 'sam', roles: ['supervisor'] },
});

// A graph whose only node needs a person first.
const graph = createGraph({
  name: 'ops',
  version: '1',
  interlock,
  nodes: { clean: { run: () => 'cleaned' } },
  start: 'clean',
  hooks: { beforeNode: [(_e, { interrupt }) => void interrupt({ name: 'confirm', reason: 'it deletes files' })] },
});
const gPaused = await graph.invoke('go', { threadId: 'consumer-graph' });
const gDone = await graph.invoke(null, {
  threadId: 'consumer-graph',
  responses: { [gPaused.interrupts[0].id]: { type: 'approve' } },
  reviewer: { id: 'sam', roles: ['supervisor'] },
});
await store.close();
console.log(
  JSON.stringify({
    paused: paused.stopReason,
    role: request.role,
    final: done.stopReason,
    text: done.text,
    ran: ran.map((r) => r.amount),
    tree: [treePaused.interrupts[0].path.join('>'), treeDone.text],
    graph: [gPaused.interrupts[0].name, gDone.text],
  }),
);
