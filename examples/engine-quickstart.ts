// The engine alone: gate a call, pause it, decide, execute once, read the story.
// Run: npm run example:engine
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterlock, createSqliteStore } from '../src/index.ts';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'interlock-')), 'demo.db') });
await store.migrate();

const il = createInterlock({
  store,
  policy: {
    tools: {
      issue_refund: [
        { id: 'small', tier: 'auto', reason: 'refunds up to $500 run alone' },
        {
          id: 'large',
          tier: 'approve',
          role: 'supervisor',
          timeout: '30m',
          reason: 'refund over $500',
          when: ({ args }) => Number(args.amount) > 500,
        },
      ],
    },
  },
});

const call = { tool: 'issue_refund', args: { orderId: 'ORD-999', amount: 850 } };
const verdict = await il.gate(call);
console.log('tier:', verdict.tier, '-', verdict.reason); // approve - refund over $500

// One transaction: checkpoint, request, audit event, notification job.
const { requests } = await il.pause({
  thread: { id: 'thr_1', agent: 'support', agentVersion: '1' },
  items: [{ call, verdict }],
  proposer: 'agent:support',
});
const req = requests[0]!;

// A reviewer approves exactly what they saw: version + action hash.
await il.decide(
  req.id,
  { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
  { id: 'sam', roles: ['supervisor'] },
);

// Execute once under a key bound to the request and action.
const out = await il.executeOnce(
  { key: `${req.id}:${req.actionHash}`, tool: req.tool, args: req.args, requestId: req.id, threadId: 'thr_1' },
  async ({ idempotencyKey }) => ({ refundId: `rf_${idempotencyKey.slice(-6)}` }),
);
console.log('execution:', out.status);

const story = await il.explain(req.id);
console.log('who decided:', story.decisions.map((d) => `${d.type} by ${d.by}`).join(', '));
console.log('audit chain ok:', (await il.verifyAudit()).ok);
await store.close();
