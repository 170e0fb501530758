// A Claude Agent SDK session behind Interlock. Claude (here a local stand-in for the Messages API, so the
// example runs offline) wants to run a shell command and refund $850 with an in-process tool. The policy
// blocks the shell command and asks a supervisor about the refund; the session's turn ends. A supervisor
// approves through the engine (as the CLI and the web UI do); a fresh process — with its own HOME, after
// a restart, say — continues the session from the transcript Interlock stored, and the refund runs once.
// Run: node examples/adapters/claude-agent-sdk.ts
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { createInterlock, openStore, type PolicyConfig } from '../../src/index.ts';
import { createClaudeAgent, interlockRun } from '../../src/claude-agent-sdk.ts';
import { startFakeAnthropic, type FakeAnthropicRequest } from '../../src/testing/index.ts';

const policy: PolicyConfig = {
  tools: {
    // Built-in tools are gated like your own: Claude Code's Bash, Edit, Write, WebFetch…
    Bash: [{ id: 'no-shell', tier: 'block', reason: 'the support agent runs no shell commands' }],
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

const [role, dir = mkdtempSync(join(tmpdir(), 'interlock-claude-'))] = process.argv.slice(2);
const ledger = join(dir, 'payments.jsonl');
const refundShape = { orderId: z.string(), amount: z.number().positive() };

// The model's side of the conversation, scripted: a real Claude decides the same way from the same messages.
function model(req: FakeAnthropicRequest) {
  const last = req.messages.filter((m) => m.role !== 'system').at(-1)!;
  const blocks = Array.isArray(last.content) ? (last.content as Array<{ type: string; text?: string }>) : [];
  if (blocks.some((b) => b.type === 'tool_result'))
    return [
      {
        type: 'text' as const,
        text: role === 'resume' ? 'Your refund of $850 is on its way.' : 'A supervisor reviews the refund.',
      },
    ];
  const refund = {
    type: 'tool_use' as const,
    id: `toolu_${Date.now()}`,
    name: 'mcp__shop__issue_refund',
    input: { orderId: 'A-1001', amount: 850 },
  };
  // Interlock's resume message says the refund was approved: Claude makes the call again.
  if (blocks.some((b) => b.text?.startsWith('Interlock:'))) return [refund];
  return [
    { type: 'tool_use' as const, id: 'toolu_shell', name: 'Bash', input: { command: 'rm -rf /var/tmp/cache' } },
    refund,
  ];
}

const api = await startFakeAnthropic(model);
const store = await openStore(join(dir, 'interlock.db'));
const interlock = createInterlock({ store, policy });
const support = createClaudeAgent({
  interlock,
  name: 'order-support',
  query: (params) => query(params),
  createSdkMcpServer,
  server: 'shop',
  tools: [
    tool('issue_refund', 'Refund an order', refundShape, async ({ orderId, amount }, extra) => {
      // The key binds the payment to the approved request: a retry after a crash is not paid twice.
      appendFileSync(ledger, JSON.stringify({ key: interlockRun(extra).idempotencyKey, orderId, amount }) + '\n');
      return { content: [{ type: 'text', text: `refunded $${amount} on ${orderId}` }] };
    }),
  ],
  schemas: { issue_refund: z.object(refundShape) },
  // api.env(): a dummy key, a fresh HOME and no telemetry — each process its own machine, as far as Claude Code knows.
  options: { cwd: dir, env: api.env(), settingSources: [] },
});

if (role === 'resume') {
  const done = await support.resume('thr_claude');
  console.log(`resumed in process ${process.pid}: ${done.stopReason} - ${done.text}`);
} else {
  const first = await support.invoke('Please clear the cache and refund order A-1001 ($850).', {
    threadId: 'thr_claude',
  });
  console.log(`app: ${first.stopReason} - ${first.interrupts[0]?.message}`);
  const results = JSON.stringify(await interlock.threads.listMessages('thr_claude'));
  console.log(`Bash: ${/Blocked by policy: [^.]*/.exec(results)?.[0]}`);
  const req = await interlock.getRequestOrThrow(first.interrupts[0]!.id);
  const decided = await interlock.decide(
    req.id,
    { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
    { id: 'sam', roles: ['supervisor'] },
  );
  console.log(`reviewer: ${decided.outcome}`);
  // A new process picks the session up (the worker would do the same).
  execFileSync(process.execPath, [process.argv[1]!, 'resume', dir], { stdio: 'inherit' });
  const paid = readFileSync(ledger, 'utf8').trim().split('\n');
  console.log(`refunds at the payment provider: ${paid.length}`);
}
await store.close();
await api.close();
