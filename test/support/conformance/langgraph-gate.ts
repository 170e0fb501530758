import {
  Annotation,
  END,
  MemorySaver,
  START,
  Send,
  StateGraph,
  type LangGraphRunnableConfig,
} from '@langchain/langgraph';
import { z } from 'zod';
import { createLangChainRunner, interlockGraphGate } from '../../../src/langchain.ts';
import type { ConformanceCall, IntegrationDriver } from '../../../src/testing/index.ts';
import { forgeApproval, type GraphState } from './langchain.ts';

const State = Annotation.Root({
  text: Annotation<string>(),
  calls: Annotation<ConformanceCall[]>({ reducer: (_a, b) => b, default: () => [] }),
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  messages: Annotation<Array<{ role: string; content: string }>>({
    reducer: (a, b) => [...a, ...b],
    default: () => [],
  }),
});

/**
 * A hand-written LangGraph graph with interlockGraphGate: a planning node proposes the step's calls
 * (the world's plan), one `act` task per call (LangGraph's Send) proposes it through the gate, and an
 * answering node replies once they are done.
 */
export const langGraphGateDriver: IntegrationDriver = {
  name: 'langgraph-gate',
  // LangGraph saved the finished tasks: the runner continues the graph from its last checkpoint.
  retry: 'resume',
  forge: (world, _runner, threadId) => forgeApproval(world.shared.get('langgraph-gate-graph') as GraphState, threadId),
  create(world) {
    // The actions' schemas let reviewers edit them (without one, a request is approved or rejected only).
    const gate = interlockGraphGate({
      interlock: world.interlock,
      name: 'cf-graph',
      tools: [
        { name: 'issue_refund', schema: z.object({ orderId: z.string(), amount: z.number().positive() }) },
        { name: 'lookup_order', schema: z.object({ orderId: z.string() }) },
      ],
    });
    const act = async (s: { call: ConformanceCall }, config: LangGraphRunnableConfig) => {
      const r = await gate.act(config, { id: s.call.id, tool: s.call.tool, args: s.call.args }, async (args, run) =>
        s.call.tool === 'issue_refund'
          ? world.refund(args as { orderId: string; amount: number }, run.idempotencyKey)
          : world.lookup(args as { orderId: string }),
      );
      return { log: [r.ran ? JSON.stringify(r.result) : r.message] };
    };
    const checkpointer = (world.shared.get('langgraph-gate') as MemorySaver | undefined) ?? new MemorySaver();
    world.shared.set('langgraph-gate', checkpointer);
    const graph = new StateGraph(State)
      .addNode('plan', (s: typeof State.State) => ({ calls: world.plan(s.text) }))
      .addNode('act', act)
      .addNode('answer', () => {
        world.afterTools();
        return { messages: [{ role: 'assistant', content: 'Done.' }] };
      })
      .addEdge(START, 'plan')
      .addConditionalEdges('plan', (s: typeof State.State) => s.calls.map((call) => new Send('act', { call })), ['act'])
      .addEdge('act', 'answer')
      .addEdge('answer', END)
      .compile({ checkpointer });
    world.shared.set('langgraph-gate-graph', graph);
    return createLangChainRunner({
      name: 'cf-graph',
      interlock: world.interlock,
      agent: graph,
      input: (text) => ({ text }),
    });
  },
};
