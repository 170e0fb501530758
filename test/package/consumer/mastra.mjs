// A plain JavaScript project on Mastra puts Interlock in front of its agent's tools.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { InMemoryStore } from '@mastra/core/storage';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { createInterlock, createSqliteStore } from 'interlock-approvals';
import { createMastraAgent, interlockRun } from 'interlock-approvals/mastra';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'consumer-mastra-')), 'il.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: { tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }] } },
});
const ran = [];
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const model = new MastraLanguageModelV2Mock({
  doGenerate: async ({ prompt }) =>
    prompt.at(-1).role === 'user'
      ? {
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'issue_refund', input: '{"amount":850}' }],
          finishReason: 'tool-calls',
          usage,
          warnings: [],
        }
      : { content: [{ type: 'text', text: 'Refunded.' }], finishReason: 'stop', usage, warnings: [] },
});
const agent = new Agent({
  id: 'support',
  name: 'Support',
  instructions: 'You help customers.',
  model,
  tools: {
    issue_refund: createTool({
      id: 'issue_refund',
      description: 'Refund',
      inputSchema: z.object({ amount: z.number() }),
      execute: async ({ amount }, context) => {
        ran.push([amount, interlockRun(context).idempotencyKey.length > 0]);
        return 'ok';
      },
    }),
  },
});
new Mastra({ agents: { support: agent }, storage: new InMemoryStore(), logger: false });
const support = createMastraAgent({ interlock, agent });
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
