// A plain JavaScript project on LangChain's createAgent puts Interlock in its middleware.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, createAgent, tool } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';
import { createInterlock, createSqliteStore } from 'interlock-approvals';
import { createLangChainRunner, interlockMiddleware, interlockRun } from 'interlock-approvals/langchain';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'consumer-lc-')), 'il.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: { tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }] } },
});
const ran = [];
const refund = tool(
  ({ amount }) => {
    ran.push([amount, interlockRun().idempotencyKey.length > 0]);
    return 'ok';
  },
  { name: 'issue_refund', description: 'Refund', schema: z.object({ amount: z.number() }) },
);
const model = fakeModel()
  .respondWithTools([{ name: 'issue_refund', args: { amount: 850 }, id: 'c1' }])
  .respond(new AIMessage('Refunded.'));
const agent = createAgent({
  model,
  tools: [refund],
  checkpointer: new MemorySaver(),
  middleware: [interlockMiddleware({ interlock, name: 'support', tools: [refund] })],
});
const support = createLangChainRunner({ name: 'support', interlock, agent });
const first = await support.invoke('refund please', { threadId: 't1' });
const req = await interlock.getRequestOrThrow(first.interrupts[0].id);
await interlock.decide(
  req.id,
  { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
  { id: 'sam', roles: ['supervisor'] },
);
const done = await support.resume('t1');
await support.resume('t1');
console.log(
  JSON.stringify({ paused: first.stopReason, call: req.toolCallId, final: done.stopReason, text: done.text, ran }),
);
await store.close();
