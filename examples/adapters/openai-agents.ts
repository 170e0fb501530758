// An OpenAI Agents SDK agent behind Interlock. The app runs the agent until it pauses before an $850
// refund; a supervisor approves through the engine (as the CLI and the web UI do); a fresh process —
// after a restart, say — resumes the run from the RunState Interlock stored, and the refund runs once.
// Run: node examples/adapters/openai-agents.ts
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, RunState, Runner, tool } from '@openai/agents-core';
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents-core/testing';
import { z } from 'zod';
import { createInterlock, openStore, type PolicyConfig } from '../../src/index.ts';
import { createOpenAIAgentsAgent, interlockRun } from '../../src/openai-agents.ts';

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

const [role, dir = mkdtempSync(join(tmpdir(), 'interlock-openai-agents-'))] = process.argv.slice(2);
const ledger = join(dir, 'payments.jsonl');
const refundParameters = z.object({ orderId: z.string(), amount: z.number().positive() });

// Any model works here; this is the SDK's offline ScriptedModel. A restarted process has its own script:
// the first process's model call is not repeated (Interlock stored the run).
const model = new ScriptedModel(
  role === 'resume'
    ? [[assistantMessage('Your refund of $850 is on its way.')]]
    : [[functionCall('issue_refund', { orderId: 'A-1001', amount: 850 }, { callId: 'call_1' })]],
);
const agent = new Agent({
  name: 'order-support',
  instructions: 'You help customers.',
  model,
  tools: [
    tool({
      name: 'issue_refund',
      description: 'Refund an order',
      parameters: refundParameters,
      execute: async ({ orderId, amount }, _ctx, details) => {
        // The key binds the payment to the approved request: a retry after a crash is not paid twice.
        appendFileSync(ledger, JSON.stringify({ key: interlockRun(details).idempotencyKey, orderId, amount }) + '\n');
        return `refunded $${amount} on ${orderId}`;
      },
    }),
  ],
});

const store = await openStore(join(dir, 'interlock.db'));
const interlock = createInterlock({ store, policy });
const runner = new Runner({ tracingDisabled: true });
const support = createOpenAIAgentsAgent({
  interlock,
  agent,
  RunState,
  run: (a, input) => runner.run(a, input),
  schemas: { issue_refund: refundParameters },
});

if (role === 'resume') {
  const done = await support.resume('thr_openai');
  console.log(`resumed in process ${process.pid}: ${done.stopReason} - ${done.text}`);
} else {
  const first = await support.invoke('Please refund order A-1001 ($850).', { threadId: 'thr_openai' });
  console.log(`app: ${first.stopReason} - ${first.interrupts[0]?.message}`);
  const req = await interlock.getRequestOrThrow(first.interrupts[0]!.id);
  const decided = await interlock.decide(
    req.id,
    { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
    { id: 'sam', roles: ['supervisor'] },
  );
  console.log(`reviewer: ${decided.outcome} request ${req.id} for call ${req.toolCallId}`);
  await store.close();
  process.stdout.write(execFileSync(process.execPath, [import.meta.filename, 'resume', dir], { encoding: 'utf8' }));
  const refunds = readFileSync(ledger, 'utf8').trim().split('\n');
  console.log(`refunds at the payment provider: ${refunds.length}`);
  if (refunds.length !== 1) process.exit(1);
}
await store.close().catch(() => undefined);
