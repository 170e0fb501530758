// A plain JavaScript project on the Vercel AI SDK puts Interlock in front of its tools.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { createInterlock, createSqliteStore } from 'interlock-approvals';
import { createAiSdkAgent, interlockRun } from 'interlock-approvals/ai-sdk';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'consumer-ai-')), 'il.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: { tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }] } },
});
const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) =>
    prompt.at(-1).role === 'user'
      ? {
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'issue_refund', input: '{"amount":850}' }],
          finishReason: { unified: 'tool-calls' },
          usage,
          warnings: [],
        }
      : { content: [{ type: 'text', text: 'Refunded.' }], finishReason: { unified: 'stop' }, usage, warnings: [] },
});
const ran = [];
const agent = createAiSdkAgent({
  name: 'support',
  interlock,
  tools: {
    issue_refund: tool({
      inputSchema: z.object({ amount: z.number() }),
      execute: async ({ amount }, options) => {
        ran.push([amount, interlockRun(options).idempotencyKey.length > 0]);
        return { ok: true };
      },
    }),
  },
  generate: (i) => generateText({ model, stopWhen: stepCountIs(3), ...i }),
});
const first = await agent.invoke('refund please', { threadId: 't1' });
const req = await interlock.getRequestOrThrow(first.interrupts[0].id);
await interlock.decide(
  req.id,
  { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
  { id: 'sam', roles: ['supervisor'] },
);
const done = await agent.resume('t1');
await agent.resume('t1');
console.log(
  JSON.stringify({ paused: first.stopReason, call: req.toolCallId, final: done.stopReason, text: done.text, ran }),
);
await store.close();
