// A Mastra agent behind Interlock. The app's process runs the agent until Mastra suspends it before an
// $850 refund (its own tool-call approval, asked by Interlock's policy); a supervisor approves over
// Interlock's HTTP API; the Interlock service — another process, with its own Mastra and an empty
// Mastra storage — resumes the run from Interlock's checkpoint and the refund runs exactly once.
// Run: node examples/adapters/mastra.ts
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { InMemoryStore } from '@mastra/core/storage';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { createInterlock, openStore, type Interlock, type PolicyConfig } from '../../src/index.ts';
import { createMastraAgent, interlockRun } from '../../src/mastra.ts';
import { createReviewer, startService } from '../../src/server.ts';

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

/** The payment provider: one line per refund it accepted, deduplicated by idempotency key. */
function pay(ledger: string, key: string, orderId: string, amount: number) {
  const seen = existsSync(ledger) ? readFileSync(ledger, 'utf8') : '';
  if (!seen.includes(`"${key}"`)) appendFileSync(ledger, JSON.stringify({ key, orderId, amount }) + '\n');
  return { refundId: `rf_${orderId}`, amount };
}

// Any model Mastra takes works here ('openai/gpt-5', an AI SDK provider); this one is Mastra's own offline mock.
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const model = new MastraLanguageModelV2Mock({
  doGenerate: async ({ prompt }) =>
    prompt.at(-1)?.role === 'user'
      ? {
          content: [
            {
              type: 'tool-call',
              toolCallId: 'call_1',
              toolName: 'issue_refund',
              input: '{"orderId":"A-1001","amount":850}',
            },
          ],
          finishReason: 'tool-calls',
          usage,
          warnings: [],
        }
      : {
          content: [{ type: 'text', text: 'Your refund of $850 is on its way.' }],
          finishReason: 'stop',
          usage,
          warnings: [],
        },
});

/** The agent as the team wrote it, in its own Mastra (any storage: Interlock keeps the paused run), with Interlock in front of its tools. */
function supportAgent(interlock: Interlock, ledger: string) {
  const support = new Agent({
    id: 'order-support',
    name: 'Order support',
    instructions: 'You help customers.',
    model,
    tools: {
      issue_refund: createTool({
        id: 'issue_refund',
        description: 'Refund an order',
        inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
        execute: async ({ orderId, amount }, context) => {
          // The key binds the payment to the approved request: a retry after a crash is not paid twice.
          const { idempotencyKey } = interlockRun(context);
          return pay(ledger, idempotencyKey, orderId, amount);
        },
      }),
    },
  });
  new Mastra({ agents: { support }, storage: new InMemoryStore(), logger: false });
  return createMastraAgent({ interlock, agent: support });
}

const [role, dir = mkdtempSync(join(tmpdir(), 'interlock-mastra-'))] = process.argv.slice(2);
const db = join(dir, 'interlock.db');
const ledger = join(dir, 'payments.jsonl');

if (role === 'service') {
  // The Interlock service: API, reviewer UI and the worker that resumes threads after decisions.
  const svc = await startService({
    config: { policy, agents: ({ interlock }) => [supportAgent(interlock, ledger)] },
    databaseUrl: db,
    port: 0,
    demoReviewers: false,
    log: () => undefined,
  });
  console.log(`ready ${svc.url}`);
  process.on('SIGTERM', () => void svc.close().then(() => process.exit(0)));
} else {
  // 1. The app's process: the agent runs until the refund needs a person.
  const store = await openStore(db);
  const interlock = createInterlock({ store, policy });
  const agent = supportAgent(interlock, ledger);
  const first = await agent.invoke('Please refund order A-1001 ($850).', { threadId: 'thr_mastra' });
  console.log(`app: ${first.stopReason} - ${first.interrupts[0]?.message}`);
  const { token } = await createReviewer(store, { name: 'Sam', roles: ['supervisor'] });
  await store.close();

  // 2. The Interlock service in another process; a supervisor approves over HTTP.
  const svc = spawn(process.execPath, [import.meta.filename, 'service', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) =>
    svc.stdout.on('data', (b: Buffer) => {
      const m = /ready (\S+)/.exec(b.toString());
      if (m) resolve(m[1]!);
    }),
  );
  const api = (path: string, init?: RequestInit) =>
    fetch(url + path, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    }).then((r) => r.json() as Promise<Record<string, unknown>>);
  const id = first.interrupts[0]!.id;
  const packet = (await api(`/api/v1/approvals/${id}`)) as { version: number; actionHash: string; toolCallId: string };
  console.log(`reviewer: request ${id} for call ${packet.toolCallId}`);
  const decided = await api(`/api/v1/approvals/${id}/decision`, {
    method: 'POST',
    body: JSON.stringify({ type: 'approve', expectedVersion: packet.version, actionHash: packet.actionHash }),
  });
  console.log(`reviewer: ${String(decided.outcome)} over HTTP`);

  // 3. The service's worker resumes the thread; the app only watches.
  let status = '';
  for (let i = 0; i < 200 && status !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = String(((await api('/api/v1/threads/thr_mastra')) as { status?: string }).status);
  }
  svc.kill('SIGTERM');
  const refunds = readFileSync(ledger, 'utf8').trim().split('\n');
  console.log(`thread: ${status}; refunds at the payment provider: ${refunds.length}`);
  if (status !== 'completed' || refunds.length !== 1) process.exit(1);
}
