// A process running the OpenAI Agents SDK test agent against the database its environment names:
//   node openai-agents-child.ts invoke|resume <threadId> <ledger>
// prints one JSON line with the result; exits 3 when the thread is busy (another run holds it).
// With KILL_IN_EXECUTE=1 the refund's process dies (SIGKILL) after Interlock authorized and claimed
// the call, before the payment.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { Agent, RunState, tool } from '@openai/agents-core';
import { createInterlock, openStore } from '../../src/index.ts';
import { refundPolicy } from './adapter-policy.ts';
import { createOpenAIAgentsAgent, interlockRun } from '../../src/openai-agents.ts';
import { refundSchema, runner, supportModel } from './openai-agents-model.ts';

const [verb, threadId, ledger] = process.argv.slice(2) as [string, string, string];
const store = await openStore();
const il = createInterlock({
  store,
  policy: refundPolicy,
  leaseMs: 500,
});
const agent = new Agent({
  name: 'support',
  model: supportModel(),
  tools: [
    tool({
      name: 'issue_refund',
      description: 'Refund an order',
      parameters: refundSchema,
      execute: async (args, _ctx, details) => {
        if (process.env.KILL_IN_EXECUTE === '1') process.kill(process.pid, 'SIGKILL');
        // The payment provider dedupes by idempotency key, as real ones do.
        const key = interlockRun(details).idempotencyKey;
        const paid = existsSync(ledger) ? readFileSync(ledger, 'utf8') : '';
        if (!paid.includes(`"${key}"`))
          appendFileSync(ledger, JSON.stringify({ key, ...args, pid: process.pid }) + '\n');
        return `refunded ${args.amount}`;
      },
    }),
  ],
});
const support = createOpenAIAgentsAgent({ interlock: il, agent, RunState, run: (a, i) => runner.run(a, i) });
const r =
  verb === 'invoke' ? await support.invoke(`refund ${threadId} 850`, { threadId }) : await support.resume(threadId);
console.log(JSON.stringify({ stopReason: r.stopReason, interrupts: r.interrupts, text: r.text }));
await store.close();
process.exit(r.stopReason === 'busy' ? 3 : 0);
