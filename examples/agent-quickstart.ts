// An agent that pauses before a $850 refund, is approved, and resumes where it stopped.
// Run: npm run example:agent
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, createInterlock, createSqliteStore, tool } from '../src/index.ts';
import { scriptedModel } from '../src/testing/index.ts';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'interlock-')), 'demo.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: {
    tools: {
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

const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an order',
  schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  // The idempotency key lets the payment API drop a retried request.
  execute: async ({ orderId, amount }, { idempotencyKey }) => ({ refundId: `rf_${orderId}`, amount, idempotencyKey }),
});

// Any AI SDK model works here (openai('gpt-4o'), anthropic(...)); this one is scripted and offline.
const model = scriptedModel([
  { text: 'Let me refund that.', toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-999', amount: 850 } }] },
  { text: 'Your refund of $850 is on its way.' },
]);
const agent = createAgent({
  name: 'support',
  version: '1.0.0',
  model,
  system: 'You help customers.',
  tools: [issueRefund],
  interlock,
});

const first = await agent.invoke('I need a full refund for order ORD-999', { threadId: 'thr_1' });
console.log(first.stopReason, '-', first.interrupts[0]?.message); // interrupt - needs approval from a supervisor

// Later, maybe in another process after a restart: a supervisor decides, and the thread resumes.
const done = await agent.invoke(null, {
  threadId: 'thr_1',
  responses: { [first.interrupts[0]!.id]: { type: 'approve' } },
  reviewer: { id: 'sam', roles: ['supervisor'] },
});
console.log(done.stopReason, '-', done.text); // end_turn - Your refund of $850 is on its way.
console.log('model calls:', model.calls); // 2: the first call was not repeated on resume
await store.close();
