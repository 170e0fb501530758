// A LangChain createAgent agent behind Interlock. The app runs the agent until it pauses before an $850
// refund; a supervisor edits it to $600 through Interlock (as the web UI, API or CLI do); a fresh
// process resumes the graph from its checkpointer, and the refund runs once, at $600.
// Run: node examples/adapters/langchain.ts
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, createAgent, tool } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { z } from 'zod';
import { createInterlock, openStore, type PolicyConfig } from '../../src/index.ts';
import { createLangChainRunner, interlockMiddleware, interlockRun } from '../../src/langchain.ts';
import { FileSaver } from '../../test/support/file-saver.ts';

const policy: PolicyConfig = {
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
};

const [role, dir = mkdtempSync(join(tmpdir(), 'interlock-langchain-'))] = process.argv.slice(2);
const ledger = join(dir, 'payments.jsonl');

// The graph's checkpointer stays yours (PostgresSaver, SqliteSaver…). This example keeps it in a file so
// it runs anywhere: LangGraph's MemorySaver, saved after every write (test/support/file-saver.ts).
// LangChain's own offline model: it proposes the refund, then reads the tool's answer back.
const model = fakeModel();
for (let i = 0; i < 4; i++)
  model.respond((messages) => {
    const last = messages.at(-1)!;
    if (last.getType() === 'human')
      return new AIMessage({
        content: '',
        tool_calls: [{ name: 'issue_refund', args: { orderId: 'A-1001', amount: 850 }, id: 'call_1' }],
      });
    return new AIMessage(`Done: ${typeof last.content === 'string' ? last.content : JSON.stringify(last.content)}`);
  });

const issueRefund = tool(
  ({ orderId, amount }) => {
    // The key binds the payment to the approved request: a retry after a crash is not paid twice.
    appendFileSync(ledger, JSON.stringify({ key: interlockRun().idempotencyKey, orderId, amount }) + '\n');
    return `refunded $${amount} on ${orderId}`;
  },
  {
    name: 'issue_refund',
    description: 'Refund an order',
    schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  },
);

const store = await openStore(join(dir, 'interlock.db'));
const interlock = createInterlock({ store, policy });
const agent = createAgent({
  model,
  tools: [issueRefund],
  checkpointer: new FileSaver(join(dir, 'graph.json')),
  middleware: [interlockMiddleware({ interlock, name: 'order-support', tools: [issueRefund] })],
});
const support = createLangChainRunner({ name: 'order-support', interlock, agent });

if (role === 'resume') {
  const done = await support.resume('thr_langchain');
  console.log(`resumed in process ${process.pid}: ${done.stopReason} - ${done.text}`);
} else {
  const first = await support.invoke('Please refund order A-1001 ($850).', { threadId: 'thr_langchain' });
  console.log(`app: ${first.stopReason} - ${first.interrupts[0]?.message}`);
  const req = await interlock.getRequestOrThrow(first.interrupts[0]!.id);
  const decided = await interlock.decide(
    req.id,
    {
      type: 'edit',
      expectedVersion: req.version,
      actionHash: req.actionHash,
      args: { orderId: 'A-1001', amount: 600 },
    },
    { id: 'sam', roles: ['supervisor'] },
  );
  console.log(`reviewer: edited to $600 (${decided.outcome})`);
  await store.close();
  process.stdout.write(execFileSync(process.execPath, [import.meta.filename, 'resume', dir], { encoding: 'utf8' }));
  const refunds = readFileSync(ledger, 'utf8').trim().split('\n');
  const amounts = refunds.map((l) => (JSON.parse(l) as { amount: number }).amount);
  console.log(`refunds at the payment provider: ${refunds.length} ($${amounts.join(', $')})`);
  if (refunds.length !== 1 || amounts[0] !== 600) process.exit(1);
}
await store.close().catch(() => undefined);
