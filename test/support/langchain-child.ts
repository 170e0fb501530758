// A process running the LangChain test agent against the database its environment names, with a
// durable checkpointer for the graph (PostgresSaver on PostgreSQL, a file beside the ledger on SQLite):
//   node langchain-child.ts invoke|resume <threadId> <ledger>
// prints one JSON line with the result. With KILL_IN_EXECUTE=1 the refund's process dies (SIGKILL)
// after Interlock authorized and claimed the call, before the payment.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createAgent, tool } from 'langchain';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { z } from 'zod';
import { createInterlock, openStore } from '../../src/index.ts';
import { createLangChainRunner, interlockMiddleware, interlockRun } from '../../src/langchain.ts';
import { refundPolicy } from './adapter-policy.ts';
import { supportModel } from './langchain-model.ts';
import { FileSaver } from './file-saver.ts';

const [verb, threadId, ledger] = process.argv.slice(2) as [string, string, string];
const url = process.env.DATABASE_URL;
const store = await openStore();
const il = createInterlock({ store, policy: refundPolicy, leaseMs: 500 });
const pg = url?.startsWith('postgres')
  ? PostgresSaver.fromConnString(url, { schema: process.env.INTERLOCK_PG_SCHEMA ?? 'public' })
  : undefined;
await pg?.setup();
const checkpointer = pg ?? new FileSaver(`${ledger}.graph.json`);
const refund = tool(
  async (args) => {
    if (process.env.KILL_IN_EXECUTE === '1') process.kill(process.pid, 'SIGKILL');
    // The payment provider dedupes by idempotency key, as real ones do.
    const key = interlockRun().idempotencyKey;
    const paid = existsSync(ledger) ? readFileSync(ledger, 'utf8') : '';
    if (!paid.includes(`"${key}"`)) appendFileSync(ledger, JSON.stringify({ key, ...args, pid: process.pid }) + '\n');
    return `refunded ${args.amount}`;
  },
  {
    name: 'issue_refund',
    description: 'Refund an order',
    schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  },
);
const agent = createAgent({
  model: supportModel(),
  tools: [refund],
  checkpointer,
  middleware: [interlockMiddleware({ interlock: il, name: 'support', tools: [refund] })],
});
const runner = createLangChainRunner({ name: 'support', interlock: il, agent });
const r =
  verb === 'invoke' ? await runner.invoke(`refund ${threadId} 850`, { threadId }) : await runner.resume(threadId);
console.log(JSON.stringify({ stopReason: r.stopReason, interrupts: r.interrupts, text: r.text }));
await pg?.end();
await store.close();
process.exit(0);
