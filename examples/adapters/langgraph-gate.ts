// A hand-written LangGraph graph whose refund node proposes its action through interlockGraphGate,
// typed as docs/adapters/langchain.md shows it. The node runs twice for the same order: each run is
// its own refund, approved by a supervisor and paid once; the second is never a replay of the first.
// Run: node examples/adapters/langgraph-gate.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotation, END, MemorySaver, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { createInterlock, createSqliteStore, type PolicyConfig } from '../../src/index.ts';
import { createLangChainRunner, interlockGraphGate } from '../../src/langchain.ts';

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
const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'interlock-')), 'graph.db') });
await store.migrate();
const interlock = createInterlock({ store, policy });

// The payment provider: it sees each refund and the idempotency key it came with.
const payments = {
  seen: [] as string[],
  async refund(args: Record<string, unknown>, o: { idempotencyKey: string }) {
    payments.seen.push(o.idempotencyKey);
    return { refundId: `rf_${payments.seen.length}`, amount: Number(args.amount) };
  },
};

const State = Annotation.Root({
  orderId: Annotation<string>(),
  amount: Annotation<number>(),
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});
const gate = interlockGraphGate({ interlock, name: 'refunds' });

async function refundNode(state: typeof State.State, config: LangGraphRunnableConfig) {
  const r = await gate.act(
    config,
    { id: `refund-${state.orderId}`, tool: 'issue_refund', args: { orderId: state.orderId, amount: state.amount } },
    (args, { idempotencyKey }) => payments.refund(args, { idempotencyKey }),
  );
  return { log: [r.ran ? `refunded ${JSON.stringify(r.result)}` : r.message] };
}

const graph = new StateGraph(State)
  .addNode('refund', refundNode)
  .addEdge(START, 'refund')
  .addEdge('refund', END)
  .compile({ checkpointer: new MemorySaver() });
const runner = createLangChainRunner({
  name: 'refunds',
  interlock,
  agent: graph,
  input: (orderId) => ({ orderId, amount: 850 }),
});

for (const round of [1, 2]) {
  const r = await runner.invoke('A-1001', { threadId: 'orders-A-1001' });
  const req = await interlock.getRequestOrThrow(r.interrupts[0]!.id);
  await interlock.decide(
    req.id,
    { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
    { id: 'sam', roles: ['supervisor'] },
  );
  const done = await runner.resume(r.threadId);
  console.log(`round ${round}: ${r.stopReason} → ${done.stopReason}`);
}
console.log(`refunds at the payment provider: ${payments.seen.length}, keys distinct: ${new Set(payments.seen).size}`);
await store.close();
