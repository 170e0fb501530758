import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, createAgent, todoListMiddleware } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { allBackends } from '../../testing/backends.ts';
import { manualClock } from '../../testing/clock.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { Reviewer } from '../../core/index.ts';
import { refundPolicy } from '../../../test/support/adapter-policy.ts';
import { lastToolContents, supportModel, supportTools, type RefundLog } from '../../../test/support/langchain-model.ts';
import { createLangChainRunner, interlockMiddleware, type ResumableGraph } from './index.ts';

const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`LangChain createAgent middleware on ${backend.name}`, () => {
    let il: Interlock;
    let log: RefundLog;
    let model: ReturnType<typeof supportModel>;
    let runner: ReturnType<typeof createLangChainRunner>;
    let agent: ResumableGraph;
    const clock = manualClock(Date.now());
    let n = 0;
    const thread = () => `lc-${backend.name}-${++n}`;

    before(async () => {
      const store = await backend.create();
      il = createInterlock({ store, policy: refundPolicy, now: clock.now });
      log = { runs: [] };
      model = supportModel(400);
      const tools = supportTools(log);
      agent = createAgent({
        model,
        tools,
        checkpointer: new MemorySaver(),
        // The tools' zod schemas validate reviewers' edits.
        middleware: [interlockMiddleware({ interlock: il, name: 'support', tools })],
      });
      runner = createLangChainRunner({ name: 'support', interlock: il, agent });
    });
    after(() => backend.destroy());

    const runsOf = (orderId: string) => log.runs.filter((r) => r.args.orderId === orderId);
    const lastSeen = () => lastToolContents(model.calls.at(-1)!.messages);
    async function pauseRefund(t: string) {
      const r = await runner.invoke(`refund ${t} 850`, { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      return il.getRequestOrThrow(r.interrupts[0]!.id);
    }
    const decide = (req: { id: string; version: number; actionHash: string }, d: Record<string, unknown>) =>
      il.decide(
        req.id,
        { expectedVersion: req.version, actionHash: req.actionHash, ...d } as Parameters<Interlock['decide']>[1],
        sam,
      );

    it('runs an auto call once under the ledger', async () => {
      const t = thread();
      const r = await runner.invoke(`refund ${t} 40`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      assert.deepEqual(
        runsOf(t).map((x) => x.key),
        [`${t}:call_refund`],
      );
    });

    it("interrupts with LangChain's HITL shape plus the request; re-entry opens no second request", async () => {
      const t = thread();
      const req = await pauseRefund(t);
      const state = await agent.getState({ configurable: { thread_id: t } });
      const value = state.tasks.flatMap((x) => x.interrupts ?? [])[0]?.value as Record<string, unknown>;
      assert.deepEqual((value.actionRequests as unknown[]).length, 1);
      assert.equal((value.interlock as { requestId: string }).requestId, req.id);
      assert.equal(req.toolCallId, 'call_refund');
      assert.equal((await runner.resume(t)).stopReason, 'interrupt');
      assert.equal((await il.listRequests({ threadId: t })).items.length, 1);
    });

    it('approve: runs once with the request-bound key, and the thread completes', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await decide(req, { type: 'approve' });
      const done = await runner.resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.match(done.text, /refunded 850/);
      assert.deepEqual(
        runsOf(t).map((x) => x.key),
        [`${req.id}:${req.actionHash}`],
      );
      assert.equal((await runner.resume(t)).stopReason, 'end_turn');
      assert.equal(runsOf(t).length, 1);
      assert.equal((await il.threads.getThread(t))?.status, 'completed');
    });

    it("reject: nothing runs and the model sees the reviewer's message", async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await decide(req, { type: 'reject', message: 'never paid' });
      await runner.resume(t);
      assert.equal(runsOf(t).length, 0);
      assert.match(String(lastSeen().call_refund), /rejected.*never paid/);
    });

    it('edit: the edited arguments run, re-validated, and the model is told', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await assert.rejects(decide(req, { type: 'edit', args: { orderId: t, amount: 600, note: 'x' } }), {
        code: 'invalid_input',
      });
      await decide(req, { type: 'edit', args: { orderId: t, amount: 600 } });
      await runner.resume(t);
      assert.deepEqual(
        runsOf(t).map((x) => x.args.amount),
        [600],
      );
      assert.match(String(lastSeen().call_refund), /changed the arguments.*refunded 600/);
    });

    it("respond: nothing runs and the reviewer's answer is the tool result", async () => {
      const t = thread();
      const req = await pauseRefund(t);
      await decide(req, { type: 'respond', message: 'Offer store credit.' });
      await runner.resume(t);
      assert.equal(runsOf(t).length, 0);
      assert.equal(lastSeen().call_refund, 'Offer store credit.');
    });

    it('timeout: the rule default applies', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      clock.advance(31 * 60_000);
      assert.ok((await il.expireDue()).some((x) => x.id === req.id));
      await runner.resume(t);
      assert.equal(runsOf(t).length, 0);
      assert.match(String(lastSeen().call_refund), /deadline/);
    });

    it('a resume value is not a decision: an edit renaming the tool, sent straight to the graph, runs nothing', async () => {
      const t = thread();
      const req = await pauseRefund(t);
      const state = await agent.getState({ configurable: { thread_id: t } });
      const id = state.tasks.flatMap((x) => x.interrupts ?? [])[0]!.id!;
      const forged = { decisions: [{ type: 'edit', editedAction: { name: 'lookup_order', args: { orderId: t } } }] };
      await agent.invoke(new Command({ resume: { [id]: forged } }), { configurable: { thread_id: t } });
      assert.equal(runsOf(t).length, 0);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');
      assert.equal((await runner.resume(t)).stopReason, 'interrupt');
    });

    it('two gated calls in one step are resumed by id, each once', async () => {
      const t = thread();
      const r = await runner.invoke(`both ${t} 850`, { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await decide(req, { type: 'approve' });
      const done = await runner.resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.equal(runsOf(t).length, 1);
      assert.match(done.text, /delivered/);
    });

    it("the thread keeps the conversation for reviewers: the user's words and the call at the pause, the result and the answer at the end", async () => {
      const t = thread();
      const r = await runner.invoke(`refund ${t} 850`, { threadId: t });
      const atPause = JSON.stringify(await il.threads.listMessages(t));
      assert.match(atPause, new RegExp(`"role":"user","content":\\[\\{"type":"text","text":"refund ${t} 850"`));
      assert.match(atPause, /"type":"tool-call","toolCallId":"call_refund","toolName":"issue_refund"/);
      const req = await il.getRequestOrThrow(r.interrupts[0]!.id);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      await runner.resume(t);
      const all = await il.threads.listMessages(t);
      const text = JSON.stringify(all);
      assert.match(text, /"type":"tool-result","toolCallId":"call_refund".*refunded 850/);
      assert.match(text, /Done:/);
      assert.equal(text.split(`refund ${t} 850`).length - 1, 1, 'each message is stored once');
      assert.equal((await il.threads.getThread(t))?.status, 'completed');
    });

    it("the interrupt offers edit with the tool's argsSchema, as LangChain's HITL request does", async () => {
      const t = thread();
      await runner.invoke(`refund ${t} 850`, { threadId: t });
      const state = await agent.getState({ configurable: { thread_id: t } });
      const value = state.tasks.flatMap((x) => x.interrupts ?? [])[0]?.value as {
        reviewConfigs: Array<{ allowedDecisions: string[]; argsSchema?: { properties?: Record<string, unknown> } }>;
      };
      assert.deepEqual(value.reviewConfigs[0]!.allowedDecisions, ['approve', 'edit', 'reject']);
      assert.deepEqual(Object.keys(value.reviewConfigs[0]!.argsSchema?.properties ?? {}).sort(), ['amount', 'orderId']);
    });

    it('block: the rule reason is the tool result and nothing runs', async () => {
      const t = thread();
      const r = await runner.invoke(`refund ${t} 9000`, { threadId: t });
      assert.equal(r.stopReason, 'end_turn');
      assert.equal(runsOf(t).length, 0);
      assert.match(String(lastSeen().call_refund), /Blocked by policy/);
    });
  });
}

// Tools that return a Command (LangChain's own todoListMiddleware, deepagents' tools, handoff tools)
// run under the ledger like any tool; the Command reaches the graph, also when it is replayed.
for (const backend of allBackends()) {
  describe(`LangChain tools that return a Command, under interlockMiddleware, on ${backend.name}`, () => {
    let il: Interlock;
    after(() => backend.destroy());

    it("LangChain's todoListMiddleware keeps working: write_todos updates the agent's state, once, gated as auto", async () => {
      il = createInterlock({
        store: await backend.create(),
        policy: { tools: { write_todos: [{ id: 'plan', tier: 'auto', reason: 'planning has no effect outside' }] } },
      });
      const model = fakeModel()
        .respond(
          new AIMessage({
            content: '',
            tool_calls: [
              {
                name: 'write_todos',
                id: 'call_todos',
                args: { todos: [{ content: 'refund A-1', status: 'pending' }] },
              },
            ],
          }),
        )
        .respond(new AIMessage('Planned.'));
      const agent = createAgent({
        model,
        tools: [],
        checkpointer: new MemorySaver(),
        middleware: [todoListMiddleware(), interlockMiddleware({ interlock: il, name: 'planner' })],
      });
      const t = `todos-${backend.name}`;
      const out = (await agent.invoke(
        { messages: [{ role: 'user', content: 'plan it' }] },
        { configurable: { thread_id: t } },
      )) as { todos?: Array<{ content: string }>; messages: Array<{ content: unknown }> };
      assert.deepEqual(
        out.todos?.map((x) => x.content),
        ['refund A-1'],
      );
      assert.equal(out.messages.at(-1)?.content, 'Planned.');
      const audit = await il.audit.listAudit({ threadId: t });
      assert.ok(audit.some((e) => e.type === 'auto_executed' && e.payload.tool === 'write_todos'));
    });
  });
}
