// A plain JavaScript project on the Claude Agent SDK puts Interlock in front of its session's tool calls
// (the SDK's bundled Claude Code against a local Messages API, offline).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { createInterlock, createSqliteStore } from 'interlock-approvals';
import { createClaudeAgent, interlockRun } from 'interlock-approvals/claude-agent-sdk';
import { startFakeAnthropic } from 'interlock-approvals/testing';

const dir = mkdtempSync(join(tmpdir(), 'consumer-claude-'));
const store = createSqliteStore({ path: join(dir, 'il.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: { tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }] } },
});
const ran = [];
let calls = 0;
const api = await startFakeAnthropic((req) => {
  const last = req.messages.filter((m) => m.role !== 'system').at(-1);
  const blocks = Array.isArray(last.content) ? last.content : [];
  if (blocks.some((b) => b.type === 'tool_result')) return [{ type: 'text', text: 'Refunded.' }];
  return [{ type: 'tool_use', id: `c${++calls}`, name: 'mcp__shop__issue_refund', input: { amount: 850 } }];
});
const support = createClaudeAgent({
  interlock,
  query: (params) => query(params),
  createSdkMcpServer,
  server: 'shop',
  tools: [
    tool('issue_refund', 'Refund', { amount: z.number() }, async ({ amount }, extra) => {
      ran.push([amount, interlockRun(extra).idempotencyKey.length > 0]);
      return { content: [{ type: 'text', text: 'ok' }] };
    }),
  ],
  options: { cwd: dir, env: api.env(), settingSources: [] },
});
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
await api.close();
await store.close();
