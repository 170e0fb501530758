// A process running the AI SDK test agent against the database its environment names:
//   node ai-sdk-child.ts invoke|resume <threadId> <ledger>
// prints one JSON line with the result; exits 3 when the thread is busy (another run holds it).
// With KILL_IN_EXECUTE=1 the refund's process dies (SIGKILL) after Interlock authorized and claimed
// the call, before the payment: the crash the execute-once ledger is for.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { generateText, stepCountIs } from 'ai';
import { createInterlock, openStore } from '../../src/index.ts';
import { refundPolicy } from './adapter-policy.ts';
import { tool } from 'ai';
import { z } from 'zod';
import { createAiSdkAgent, interlockRun } from '../../src/ai-sdk.ts';
import { plan, supportModel, supportTools } from './ai-sdk-model.ts';

const [verb, threadId, ledger] = process.argv.slice(2) as [string, string, string];
const store = await openStore();
const il = createInterlock({
  store,
  policy: refundPolicy,
  leaseMs: 500,
});
const tools = supportTools({ runs: [] });
const agent = createAiSdkAgent({
  name: 'support',
  interlock: il,
  tools: {
    ...tools,
    issue_refund: tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
      execute: async (args, options) => {
        if (process.env.KILL_IN_EXECUTE === '1') process.kill(process.pid, 'SIGKILL');
        // The payment provider dedupes by idempotency key, as real ones do.
        const key = interlockRun(options).idempotencyKey;
        const paid = existsSync(ledger) ? readFileSync(ledger, 'utf8') : '';
        if (!paid.includes(`"${key}"`))
          appendFileSync(ledger, JSON.stringify({ key, ...args, pid: process.pid }) + '\n');
        return { refunded: args.amount };
      },
    }),
  },
  generate: (i) => generateText({ model: supportModel(plan), stopWhen: stepCountIs(5), ...i }),
});
const r = verb === 'invoke' ? await agent.invoke(`refund ${threadId} 850`, { threadId }) : await agent.resume(threadId);
console.log(JSON.stringify({ stopReason: r.stopReason, interrupts: r.interrupts, text: r.text }));
await store.close();
process.exit(r.stopReason === 'busy' ? 3 : 0);
