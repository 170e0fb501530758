// A plain JavaScript project on Strands Agents puts Interlock in as its agent's hook provider.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, Model, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { createInterlock, createSqliteStore } from 'interlock-approvals';
import { createStrandsAgent, interlockRun } from 'interlock-approvals/strands';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'consumer-strands-')), 'il.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: { tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }] } },
});
const ran = [];

/** An offline model provider on the SDK's Model interface: a refund call, then a text after its result. */
class OfflineModel extends Model {
  updateConfig() {}
  getConfig() {
    return {};
  }
  async *stream(messages) {
    const afterTool = messages.at(-1).content.some((b) => b.type === 'toolResultBlock');
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    if (afterTool) {
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: 'Refunded.' } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
      return;
    }
    yield {
      type: 'modelContentBlockStartEvent',
      start: { type: 'toolUseStart', name: 'issue_refund', toolUseId: 'c1' },
    };
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input: '{"amount":850}' } };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
  }
}

const refund = tool({
  name: 'issue_refund',
  description: 'Refund',
  inputSchema: z.object({ amount: z.number() }),
  callback: ({ amount }, context) => {
    ran.push([amount, interlockRun(context).idempotencyKey.length > 0]);
    return 'ok';
  },
});
const support = createStrandsAgent({
  name: 'support',
  interlock,
  agent: () => new Agent({ model: new OfflineModel(), tools: [refund], printer: false }),
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
await store.close();
