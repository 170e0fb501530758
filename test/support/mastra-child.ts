// A process running the Mastra test agent against the database its environment names:
//   node mastra-child.ts invoke|resume <threadId> <ledger>
// prints one JSON line with the result; exits 3 when the thread is busy (another run holds it).
// Each process has its own Mastra with its own in-memory storage: what a paused run needs comes from
// Interlock's checkpoint. With KILL_IN_EXECUTE=before the process dies (SIGKILL) after Interlock
// authorized and claimed the call, before the payment; with KILL_IN_EXECUTE=after, once it paid.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createInterlock, openStore } from '../../src/index.ts';
import { createMastraAgent, interlockRun } from '../../src/mastra.ts';
import { refundPolicy } from './adapter-policy.ts';
import { supportAgent, supportTools } from './mastra-support.ts';

const [verb, threadId, ledger] = process.argv.slice(2) as [string, string, string];
const store = await openStore();
const il = createInterlock({ store, policy: refundPolicy, leaseMs: 500 });
const tools = supportTools({ runs: [] });
const pay = tools.issue_refund;
const refund = pay.execute!;
// The payment provider dedupes by idempotency key, as real ones do.
pay.execute = async (args, ctx) => {
  if (process.env.KILL_IN_EXECUTE === 'before') process.kill(process.pid, 'SIGKILL');
  const key = interlockRun(ctx).idempotencyKey;
  const paid = existsSync(ledger) ? readFileSync(ledger, 'utf8') : '';
  if (!paid.includes(`"${key}"`)) appendFileSync(ledger, JSON.stringify({ key, ...args, pid: process.pid }) + '\n');
  if (process.env.KILL_IN_EXECUTE === 'after') process.kill(process.pid, 'SIGKILL');
  return refund(args, ctx);
};
const { agent } = supportAgent(tools);
const support = createMastraAgent({ interlock: il, agent });
const r =
  verb === 'invoke' ? await support.invoke(`refund ${threadId} 850`, { threadId }) : await support.resume(threadId);
console.log(JSON.stringify({ stopReason: r.stopReason, interrupts: r.interrupts, text: r.text }));
await store.close();
process.exit(r.stopReason === 'busy' ? 3 : 0);
