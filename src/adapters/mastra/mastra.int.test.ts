import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import { actionHash, type Reviewer } from '../../core/index.ts';
import { refundPolicy } from '../../../test/support/adapter-policy.ts';
import { lastResults, mastraModel } from '../../../test/support/mastra-model.ts';
import { plan, supportAgent, supportTools, type MastraRefundLog } from '../../../test/support/mastra-support.ts';
import { runTurn } from '../core/index.ts';
import { createMastraAgent, type MastraAgent } from './agent.ts';
import type { MastraFramework } from './drive.ts';

const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`Mastra adapter on ${backend.name}`, () => {
    let il: Interlock;
    let log: MastraRefundLog;
    let built: ReturnType<typeof supportAgent>;
    let gated: MastraAgent;
    let n = 0;
    const thread = () => `mastra-${backend.name}-${++n}`;

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy: refundPolicy });
      log = { runs: [] };
      built = supportAgent(supportTools(log));
      gated = createMastraAgent({ interlock: il, agent: built.agent, options: { maxSteps: 5 } });
    });
    after(() => backend.destroy());

    const runsOf = (orderId: string) => log.runs.filter((r) => r.args.orderId === orderId);
    const seen = () => lastResults(built.model.seen.at(-1)!);
    const pendingOf = async (threadId: string) => (await il.listRequests({ threadId, status: 'pending' })).items;
    const framework = async (t: string) =>
      ((await il.threads.loadLatest(t)).checkpoint?.state as { framework: MastraFramework }).framework;
    const workflows = async () =>
      (await built.storage.getStore('workflows')) as unknown as {
        loadWorkflowSnapshot(o: { workflowName: string; runId: string }): Promise<{ status: string } | null>;
        persistWorkflowSnapshot(o: { workflowName: string; runId: string; snapshot: unknown }): Promise<void>;
      };
    async function paused(t: string, amount = 850) {
      const r = await gated.invoke(`refund ${t} ${amount}`, { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      return il.getRequestOrThrow(r.interrupts[0]!.id);
    }

    it('runs an auto call at once, under the ledger, keyed by the turn, with no request', async () => {
      const t = thread();
      const r = await gated.invoke(`refund ${t} 40`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      assert.deepEqual(
        runsOf(t).map((x) => x.key),
        [
          `${t}:${runTurn(0, [{ role: 'user', content: `refund ${t} 40` }])}:${actionHash('issue_refund', { orderId: t, amount: 40 })}:0`,
        ],
      );
      assert.match(r.text, /"refunded":40/);
      assert.deepEqual(await pendingOf(t), []);
      assert.ok((await il.audit.listAudit({ threadId: t })).some((e) => e.type === 'auto_executed'));
    });

    it("pauses a gated call through Mastra's tool-call approval: one durable request, Mastra's snapshot in the checkpoint", async () => {
      const t = thread();
      const req = await paused(t);
      assert.equal(req.toolCallId, 'call_refund');
      assert.deepEqual(req.args, { orderId: t, amount: 850 });
      assert.equal((await il.threads.getThread(t))?.status, 'interrupted');
      assert.deepEqual(runsOf(t), []);
      const fw = await framework(t);
      assert.equal(fw.suspended.toolCallId, 'call_refund');
      assert.ok(fw.snapshots.some((s) => s.workflowName === 'agentic-loop'));
      assert.equal(
        (await (await workflows()).loadWorkflowSnapshot({ workflowName: 'agentic-loop', runId: fw.runId }))?.status,
        'suspended',
      );
      // Asking again while it waits never opens a second request, and never calls the model.
      const calls = built.model.seen.length;
      const again = await gated.resume(t);
      assert.equal(again.stopReason, 'interrupt');
      assert.equal(again.interrupts[0]!.id, req.id);
      assert.equal(built.model.seen.length, calls);
      assert.equal((await pendingOf(t)).length, 1);
      await assert.rejects(gated.invoke('anything', { threadId: t }), { code: 'thread_interrupted' });
    });

    it('approve: approveToolCallGenerate runs the call once with the request-bound key; the model reads its result', async () => {
      const t = thread();
      const req = await paused(t);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      const done = await gated.resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.deepEqual(
        runsOf(t).map((x) => x.key),
        [`${req.id}:${req.actionHash}`],
      );
      assert.deepEqual(seen().call_refund, { type: 'json', value: { refunded: 850 } });
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
      assert.equal((await gated.resume(t)).stopReason, 'end_turn');
      assert.equal(runsOf(t).length, 1);
      assert.equal((await il.threads.getThread(t))?.status, 'completed');
      // The whole run is the thread's history: the next message continues it.
      const history = await il.threads.listMessages(t);
      assert.deepEqual(
        history.map((m) => (m as { role: string }).role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
    });

    it("reject: declineToolCallGenerate; the tool does not run and the model reads the reviewer's reason", async () => {
      const t = thread();
      const req = await paused(t);
      await il.decide(
        req.id,
        { type: 'reject', expectedVersion: req.version, actionHash: req.actionHash, message: 'order was never paid' },
        sam,
      );
      assert.equal((await gated.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(runsOf(t), []);
      assert.match(JSON.stringify(seen().call_refund), /rejected.*order was never paid/);
    });

    it("respond: the tool does not run and the reviewer's answer is its result", async () => {
      const t = thread();
      const req = await paused(t);
      await il.decide(
        req.id,
        { type: 'respond', expectedVersion: req.version, actionHash: req.actionHash, message: 'Offer store credit.' },
        sam,
      );
      assert.equal((await gated.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(runsOf(t), []);
      assert.match(JSON.stringify(seen().call_refund), /Offer store credit\./);
    });

    it('edit: the edited, re-validated arguments run once', async () => {
      const t = thread();
      const req = await paused(t);
      const edit = (amount: number) => ({
        type: 'edit' as const,
        expectedVersion: req.version,
        actionHash: req.actionHash,
        args: { orderId: t, amount },
      });
      await assert.rejects(il.decide(req.id, edit(-5), sam), { code: 'invalid_input' });
      await il.decide(req.id, edit(400), sam);
      await gated.resume(t);
      assert.deepEqual(
        runsOf(t).map((x) => x.args.amount),
        [400],
      );
      assert.deepEqual(seen().call_refund, { type: 'json', value: { refunded: 400 } });
    });

    it("block: the tool does not run, the model reads the rule's reason, the refusal is audited", async () => {
      const t = thread();
      const r = await gated.invoke(`refund ${t} 9000`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      assert.deepEqual(runsOf(t), []);
      assert.match(JSON.stringify(seen().call_refund), /not done by agents/);
      assert.ok((await il.audit.listAudit({ threadId: t })).some((e) => e.type === 'refused'));
    });

    it("Mastra's storage disagrees (resumed around Interlock, then altered): Interlock's checkpoint decides", async () => {
      const t = thread();
      const req = await paused(t);
      const fw = await framework(t);
      // Approved in Mastra itself: the gated tool refuses to run outside Interlock, and Mastra's run ends.
      await built.agent.approveToolCallGenerate({ runId: fw.runId });
      assert.deepEqual(runsOf(t), []);
      const wf = await workflows();
      assert.notEqual(
        (await wf.loadWorkflowSnapshot({ workflowName: 'agentic-loop', runId: fw.runId }))?.status,
        'suspended',
      );
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');
      // Someone puts a suspended copy with another amount into Mastra's storage.
      const forged = JSON.parse(JSON.stringify(fw.snapshots[0]!.snapshot).replaceAll(':850', ':4999')) as unknown;
      await wf.persistWorkflowSnapshot({ workflowName: 'agentic-loop', runId: fw.runId, snapshot: forged });
      assert.equal((await gated.resume(t)).stopReason, 'interrupt', 'no decision: still waiting');
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      assert.equal((await gated.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(
        runsOf(t).map((x) => x.args.amount),
        [850],
      );
    });

    it("a tool's own requireApproval is answered by Interlock's policy: an auto call runs without a request", async () => {
      const runs: MastraRefundLog = { runs: [] };
      const tools = supportTools(runs);
      (tools.issue_refund as { requireApproval?: boolean }).requireApproval = true;
      const own = supportAgent(tools);
      const agent = createMastraAgent({ interlock: il, agent: own.agent, name: 'own-approval' });
      const t = thread();
      assert.equal((await agent.invoke(`refund ${t} 60`, { threadId: t })).stopReason, 'end_turn');
      assert.deepEqual(
        runs.runs.map((x) => x.args.amount),
        [60],
      );
      assert.deepEqual(await pendingOf(t), []);
    });

    it('a call id the model uses again in a later step is gated again, never run on the earlier verdict', async () => {
      const runs: MastraRefundLog = { runs: [] };
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      const refund = (amount: number) => ({
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: 'same',
            toolName: 'issue_refund',
            input: JSON.stringify({ orderId: 'R-1', amount }),
          },
        ],
        finishReason: 'tool-calls' as const,
        usage,
        warnings: [],
      });
      const model = new MastraLanguageModelV2Mock({
        doGenerate: async ({ prompt }) => {
          const results = prompt.filter((m) => m.role === 'tool').length;
          if (results === 0) return refund(40);
          if (results === 1) return refund(850);
          return {
            content: [{ type: 'text' as const, text: 'Done.' }],
            finishReason: 'stop' as const,
            usage,
            warnings: [],
          };
        },
      });
      const agent = new Agent({ id: 'reuser', name: 'Reuser', instructions: 'x', model, tools: supportTools(runs) });
      new Mastra({ agents: { reuser: agent }, storage: built.storage, logger: false });
      const reuser = createMastraAgent({ interlock: il, agent });
      const t = thread();
      const r = await reuser.invoke('refund twice', { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      assert.deepEqual(
        runs.runs.map((x) => x.args.amount),
        [40],
      );
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      assert.deepEqual(req.args, { orderId: 'R-1', amount: 850 });
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      assert.equal((await reuser.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(
        runs.runs.map((x) => [x.args.amount, x.key]),
        [
          [40, runs.runs[0]!.key],
          [850, `${req.id}:${req.actionHash}`],
        ],
      );
    });

    it('a run around Interlock (agent.generate directly) runs no gated tool', async () => {
      const t = thread();
      await built.agent.generate(`refund ${t} 40`);
      assert.deepEqual(runsOf(t), []);
      assert.match(JSON.stringify(seen().call_refund), /not_wired|without passing through Interlock/);
    });

    it('refuses what it cannot gate: owned options, no storage, sub-agents, a tool that suspends', async () => {
      assert.throws(
        () => createMastraAgent({ interlock: il, agent: built.agent, options: { requireToolApproval: false } }),
        {
          code: 'invalid_config',
        },
      );
      const model = mastraModel(plan);
      const bare = new Agent({ id: 'bare', name: 'Bare', instructions: 'x', model, tools: supportTools(log) });
      assert.throws(
        () => createMastraAgent({ interlock: il, agent: bare }),
        (e: Error & { code?: string }) => {
          assert.equal(e.code, 'invalid_config');
          assert.match(e.message, /new Mastra\(\{ agents/);
          return true;
        },
      );
      const desk = new Agent({ id: 'desk', name: 'Desk', instructions: 'x', model, tools: supportTools(log) });
      const front = new Agent({ id: 'front', name: 'Front', instructions: 'x', model, agents: { desk } });
      new Mastra({ agents: { front }, storage: built.storage, logger: false });
      await assert.rejects(createMastraAgent({ interlock: il, agent: front }).invoke('refund x 850'), {
        code: 'not_wired',
      });
      const waits = createTool({
        id: 'lookup_order',
        description: 'Look up an order, asking the customer first',
        inputSchema: z.object({ orderId: z.string() }),
        execute: async (_args, ctx) => ctx.agent?.suspend({ question: 'Which order?' }),
      });
      const asker = new Agent({ id: 'asker', name: 'Asker', instructions: 'x', model, tools: { lookup_order: waits } });
      new Mastra({ agents: { asker }, storage: built.storage, logger: false });
      const t = thread();
      await assert.rejects(createMastraAgent({ interlock: il, agent: asker }).invoke(`lookup ${t}`, { threadId: t }), {
        code: 'not_implemented',
      });
      assert.equal((await il.threads.getThread(t))?.messageCount ?? 0, 0, 'nothing of the run was saved');
    });
  });
}
