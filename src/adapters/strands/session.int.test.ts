import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BeforeToolCallEvent, FileStorage, SessionManager, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock } from '../../engine/index.ts';
import { refundPolicy } from '../../../test/support/adapter-policy.ts';
import {
  refundTool,
  supportAgent,
  supportModel,
  toolResults,
  type RefundLog,
} from '../../../test/support/strands-support.ts';
import type { FakeStrandsModel } from '../../../test/support/strands-model.ts';
import { createStrandsAgent } from './agent.ts';

/** Every file under a folder. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

for (const backend of allBackends()) {
  describe(`Strands adapter with a session manager, across a restart, on ${backend.name}`, () => {
    after(() => backend.destroy());

    it("Interlock's checkpoint is the source of truth: a restart between decision and resume runs the approved call once, and the session storage ends up agreeing", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'interlock-strands-session-'));
      const log: RefundLog = { runs: [] };
      const refund = refundTool(log);
      // One "process": its own database connection, engine, model and adapter; the session files are shared.
      const processOf = async () => {
        const store = await backend.create();
        const il = createInterlock({ store, policy: refundPolicy });
        const model = supportModel();
        const sessions = (threadId: string) =>
          new SessionManager({ sessionId: threadId, storage: { snapshot: new FileStorage(dir) } });
        const agent = createStrandsAgent({
          name: 'support',
          interlock: il,
          agent: (threadId) => supportAgent(model, [refund], { sessionManager: sessions(threadId) }),
        });
        return { store, il, model, agent, sessions };
      };
      const a = await processOf();
      const t = `st-session-${backend.name}`;
      const r = await a.agent.invoke(`refund ${t} 850`, { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      const req = await a.il.getRequestOrThrow(r.interrupts[0]!.id);
      await a.il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        {
          id: 'sam',
          roles: ['supervisor'],
        },
      );
      await a.store.close();

      // Meanwhile the session manager's copy changed (an older process wrote it, or someone edited it).
      const amount = /("amount":\s*)850\b/g;
      const copies = filesUnder(dir).filter((f) => /"amount":\s*850\b/.test(readFileSync(f, 'utf8')));
      assert.ok(copies.length > 0, "the session manager kept the paused agent's snapshot");
      for (const f of copies) writeFileSync(f, readFileSync(f, 'utf8').replace(amount, '$14999'));

      const b = await processOf();
      const done = await b.agent.resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.deepEqual(
        log.runs.map((x) => [x.args.amount, x.key]),
        [[850, `${req.id}:${req.actionHash}`]],
      );
      assert.match(done.text, /refunded 850/);
      assert.equal((await b.il.getRequestOrThrow(req.id)).status, 'executed');

      // The session storage now holds what Interlock's checkpoint holds.
      const saved = (await b.il.threads.loadLatest(t)).checkpoint!.state as {
        framework: { snapshot: { data: { messages: unknown[] } } };
      };
      const restored = supportAgent(supportModel(), [], { sessionManager: b.sessions(t) });
      await restored.initialize();
      assert.deepEqual(
        restored.messages.map((m) => m.toJSON()),
        saved.framework.snapshot.data.messages,
      );
      assert.ok(!JSON.stringify(restored.messages).includes('4999'));
      await b.store.close();
    });
  });
}

describe('Strands adapter: what it refuses', () => {
  const backend = allBackends()[0]!;
  after(() => backend.destroy());

  async function engine() {
    return createInterlock({ store: await backend.create(), policy: refundPolicy });
  }

  it("an interrupt raised by the app's own hook stops the run with invalid_config, and nothing is saved", async () => {
    const il = await engine();
    const log: RefundLog = { runs: [] };
    const refund = refundTool(log);
    const model = supportModel();
    const agent = createStrandsAgent({
      name: 'support',
      interlock: il,
      agent: () => {
        const a = supportAgent(model, [refund]);
        a.addHook(BeforeToolCallEvent, (e) => void e.interrupt({ name: 'my-approval' }));
        return a;
      },
    });
    await assert.rejects(agent.invoke('refund st-own 40', { threadId: 'st-own' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'invalid_config');
      assert.match(e.message, /Interlock did not raise \(hook:beforeToolCall:call_1:my-approval\).*Interlock's policy/);
      return true;
    });
    assert.deepEqual(log.runs, []);
    assert.equal((await il.threads.loadLatest('st-own')).checkpoint, undefined);
  });

  it('a tool that raises its own interrupt inside a call Interlock runs gets an error result that says what to do', async () => {
    const il = await engine();
    const model: FakeStrandsModel = supportModel();
    const asking = tool({
      name: 'issue_refund',
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      callback: (_args, context) => context!.interrupt({ name: 'confirm' }),
    });
    const agent = createStrandsAgent({ name: 'support', interlock: il, agent: () => supportAgent(model, [asking]) });
    const r = await agent.invoke('refund st-tool 40', { threadId: 'st-tool' });
    assert.equal(r.stopReason, 'end_turn');
    const seen = toolResults(model.seen.at(-1)!);
    assert.equal(seen.call_1?.status, 'error');
    assert.match(seen.call_1.text, /raised its own interrupt.*Interlock's policy/);
  });

  it('a factory that returns the same Agent twice is refused: one agent would carry a thread into another', async () => {
    const il = await engine();
    const shared = supportAgent(supportModel(), [refundTool({ runs: [] })]);
    const agent = createStrandsAgent({ name: 'support', interlock: il, agent: () => shared });
    await agent.invoke('hello', { threadId: 'st-reuse-1' });
    await assert.rejects(agent.invoke('hello', { threadId: 'st-reuse-2' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'invalid_config');
      assert.match(e.message, /returned an Agent it returned before.*new Agent/);
      return true;
    });
  });

  it('options it cannot run with are refused when it is built', async () => {
    const il = await engine();
    const bad = [
      { name: 'x', interlock: il, agent: supportAgent(supportModel(), []) },
      { name: '', interlock: il, agent: () => supportAgent(supportModel(), []) },
      { name: 'x', agent: () => supportAgent(supportModel(), []) },
    ];
    for (const o of bad) assert.throws(() => createStrandsAgent(o as never), { code: 'invalid_config' });
  });
});
