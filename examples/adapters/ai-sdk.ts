// A Vercel AI SDK agent behind Interlock. The app's process runs the agent until it pauses before an
// $850 refund; a supervisor approves over Interlock's HTTP API; the Interlock service — another process,
// which has the agent registered in its config — resumes the thread and the refund runs exactly once.
// Run: node examples/adapters/ai-sdk.ts
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { createInterlock, openStore, type Interlock, type PolicyConfig } from '../../src/index.ts';
import { createAiSdkAgent, interlockRun } from '../../src/ai-sdk.ts';
import { createReviewer, startService } from '../../src/server.ts';

const policy: PolicyConfig = {
  tools: {
    lookup_order: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
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

// Any AI SDK model works here (openai('gpt-5'), anthropic(...)); this one is the SDK's own offline mock.
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    if (prompt.at(-1)?.role === 'user')
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call_1',
            toolName: 'issue_refund',
            input: '{"orderId":"A-1001","amount":850}',
          },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    return {
      content: [{ type: 'text', text: 'Your refund of $850 is on its way.' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    };
  },
});

/** The agent as the team wrote it, with Interlock in front of its tools. */
function supportAgent(interlock: Interlock, ledger: string) {
  return createAiSdkAgent({
    name: 'order-support',
    interlock,
    tools: {
      issue_refund: tool({
        description: 'Refund an order',
        inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
        execute: async ({ orderId, amount }, options) => {
          // The key binds the payment to the approved request: a retry after a crash is not paid twice.
          const { idempotencyKey } = interlockRun(options);
          return pay(ledger, idempotencyKey, orderId, amount);
        },
      }),
    },
    generate: (input) => generateText({ model, system: 'You help customers.', stopWhen: stepCountIs(5), ...input }),
  });
}

const [role, dir = mkdtempSync(join(tmpdir(), 'interlock-ai-sdk-'))] = process.argv.slice(2);
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
  const first = await agent.invoke('Please refund order A-1001 ($850).', { threadId: 'thr_ai_sdk' });
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
    status = String(((await api('/api/v1/threads/thr_ai_sdk')) as { status?: string }).status);
  }
  svc.kill('SIGTERM');
  const refunds = readFileSync(ledger, 'utf8').trim().split('\n');
  console.log(`thread: ${status}; refunds at the payment provider: ${refunds.length}`);
  if (status !== 'completed' || refunds.length !== 1) process.exit(1);
}
