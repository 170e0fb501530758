// A process running the support → refunds agent tree against the database its environment names:
//   node multi-agent-child.ts invoke|resume <threadId> <ledger>
// prints one JSON line with the result; exits 3 when the tree is busy (another run holds it).
// With KILL_IN_EXECUTE=1 the process dies (SIGKILL) inside the sub-agent's refund, after Interlock
// authorized and claimed the call and before the payment: the crash the execute-once ledger is for.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createInterlock, openStore } from '../../src/index.ts';
import { FakePayments } from '../../src/testing/fake-payments.ts';
import { supportTree, treePolicy } from '../../src/testing/multi-agent-fixture.ts';

const [verb, threadId, ledger] = process.argv.slice(2) as [string, string, string];

/** A payment provider that keeps its ledger in a file and dedupes by idempotency key, as real ones do. */
class LedgerPayments extends FakePayments {
  override apply(kind: string, args: Record<string, unknown>, key: string): unknown {
    if (process.env.KILL_IN_EXECUTE === '1') process.kill(process.pid, 'SIGKILL');
    const paid = existsSync(ledger) ? readFileSync(ledger, 'utf8') : '';
    if (!paid.includes(`"${key}"`))
      appendFileSync(ledger, JSON.stringify({ key, kind, ...args, pid: process.pid }) + '\n');
    return super.apply(kind, args, key);
  }
}

const store = await openStore();
const il = createInterlock({ store, policy: treePolicy, leaseMs: 500 });
const t = supportTree(il, new LedgerPayments());
const r =
  verb === 'invoke' ? await t.support.invoke('Please refund $850', { threadId }) : await t.support.resume(threadId);
console.log(
  JSON.stringify({
    stopReason: r.stopReason,
    interrupts: r.interrupts,
    text: r.text,
    modelCalls: { support: t.supportModel.calls, refunds: t.refundsModel.calls },
  }),
);
await store.close();
process.exit(r.stopReason === 'busy' ? 3 : 0);
