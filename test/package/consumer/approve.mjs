// A consumer's plain-JavaScript agent script: one refund paused, approved, and run once, on SQLite.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, createInterlock, createSqliteStore, tool } from 'interlock';
import { scriptedModel } from 'interlock/testing';

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
await store.close();
console.log(
  JSON.stringify({
    paused: paused.stopReason,
    role: request.role,
    final: done.stopReason,
    text: done.text,
    ran: ran.map((r) => r.amount),
  }),
);
