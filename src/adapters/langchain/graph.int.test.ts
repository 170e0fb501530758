import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { Reviewer } from '../../core/index.ts';
import { refundPolicy } from '../../../test/support/adapter-policy.ts';
import { createLangChainRunner, interlockGraphGate, type ResumableGraph } from './index.ts';

const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`a hand-written LangGraph graph with interlockGraphGate on ${backend.name}`, () => {
    let il: Interlock;
    const paid: Array<{ orderId: string; amount: number; key: string }> = [];
    let nodeRuns = 0;
    let graph: ResumableGraph;
    let runner: ReturnType<typeof createLangChainRunner>;

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy: refundPolicy });
      const gate = interlockGraphGate({ interlock: il, name: 'refunds' });
      const State = Annotation.Root({
        orderId: Annotation<string>(),
        log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
      });
      // Two refunds proposed in parallel nodes of one step; each pauses on its own.
      const refundNode = (amount: number) => async (state: typeof State.State, config: unknown) => {
        nodeRuns++; // LangGraph re-runs an interrupted node from its top: this line runs again, the refund does not
        const r = await gate.act(
          config as { configurable?: { thread_id?: string } },
          { id: `refund-${amount}`, tool: 'issue_refund', args: { orderId: state.orderId, amount } },
          async (args, { idempotencyKey }) => {
            paid.push({ orderId: String(args.orderId), amount: Number(args.amount), key: idempotencyKey });
            return `refunded ${String(args.amount)}`;
          },
        );
        return { log: [r.ran ? String(r.result) : `not run: ${r.message}`] };
      };
      graph = new StateGraph(State)
        .addNode('small', refundNode(850))
        .addNode('large', refundNode(900))
        .addEdge(START, 'small')
        .addEdge(START, 'large')
        .addEdge('small', END)
        .addEdge('large', END)
        .compile({ checkpointer: new MemorySaver() });
      runner = createLangChainRunner({
        name: 'refunds',
        interlock: il,
        agent: graph,
        input: (orderId) => ({ orderId }),
      });
    });
    after(() => backend.destroy());

    it('two parallel interrupts, decided apart and resumed by id: the approved refund runs once, the rejected one never', async () => {
      const t = `graph-${backend.name}`;
      const first = await runner.invoke('A-7', { threadId: t });
      assert.equal(first.stopReason, 'interrupt');
      assert.equal(first.interrupts.length, 2);
      const [a, b] = await Promise.all(first.interrupts.map((i) => il.getRequestOrThrow(i.id)));
      const approve = a!.args.amount === 850 ? a! : b!;
      const reject = approve === a ? b! : a!;
      await il.decide(
        approve.id,
        { type: 'approve', expectedVersion: approve.version, actionHash: approve.actionHash },
        sam,
      );
      // One decided, one pending: the approved refund runs now, the other still waits (no second request).
      const mid = await runner.resume(t);
      assert.equal(mid.stopReason, 'interrupt');
      assert.deepEqual(
        mid.interrupts.map((i) => i.id),
        [reject.id],
      );
      assert.deepEqual(
        paid.map((p) => p.amount),
        [850],
      );
      await il.decide(
        reject.id,
        { type: 'reject', expectedVersion: reject.version, actionHash: reject.actionHash, message: 'too much' },
        sam,
      );
      const done = await runner.resume(t);
      assert.equal(done.stopReason, 'end_turn');
      assert.deepEqual(
        paid.map((p) => [p.amount, p.key]),
        [[850, `${approve.id}:${approve.actionHash}`]],
      );
      const log = (done.result as { log: string[] }).log;
      assert.ok(log.includes('refunded 850'), log.join(' | '));
      assert.ok(
        log.some((l) => /not run: .*too much/.test(l)),
        log.join(' | '),
      );
      assert.ok(nodeRuns >= 4, 'the nodes ran again from their top on resume');
      assert.equal((await il.listRequests({ threadId: t })).items.length, 2);
      assert.equal((await runner.resume(t)).stopReason, 'end_turn');
      assert.equal(paid.length, 1);
    });

    it('the same action id in a later run of the node is a new action: it asks and pays again, never replays the first', async () => {
      const t = `graph-again-${backend.name}`;
      const before = paid.length;
      for (let round = 0; round < 2; round++) {
        const r = await runner.invoke('A-8', { threadId: t });
        assert.equal(r.stopReason, 'interrupt', `round ${round}: the refund asks a person again`);
        for (const i of r.interrupts) {
          const req = await il.getRequestOrThrow(i.id);
          await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
        }
        assert.equal((await runner.resume(t)).stopReason, 'end_turn');
      }
      const mine = paid.slice(before).filter((p) => p.orderId === 'A-8');
      assert.deepEqual(mine.map((p) => p.amount).sort(), [850, 850, 900, 900]);
      assert.equal(new Set(mine.map((p) => p.key)).size, 4, 'four refunds, four keys');
    });
  });
}
