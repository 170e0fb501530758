// A plain JavaScript project on the OpenAI Agents SDK puts Interlock in front of its function tools.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, RunState, Runner, tool } from '@openai/agents-core';
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents-core/testing';
import { z } from 'zod';
import { createInterlock, createSqliteStore } from 'interlock-approvals';
import { createOpenAIAgentsAgent, interlockRun } from 'interlock-approvals/openai-agents';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'consumer-oa-')), 'il.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: { tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }] } },
});
const ran = [];
const model = new ScriptedModel([
  [functionCall('issue_refund', { amount: 850 }, { callId: 'c1' })],
  [assistantMessage('Refunded.')],
]);
const agent = new Agent({
  name: 'support',
  model,
  tools: [
    tool({
      name: 'issue_refund',
      description: 'Refund',
      parameters: z.object({ amount: z.number() }),
      execute: async ({ amount }, _ctx, details) => {
        ran.push([amount, interlockRun(details).idempotencyKey.length > 0]);
        return 'ok';
      },
    }),
  ],
});
const runner = new Runner({ tracingDisabled: true });
const support = createOpenAIAgentsAgent({ interlock, agent, RunState, run: (a, i) => runner.run(a, i) });
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
