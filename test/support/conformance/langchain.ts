import { AIMessage, createAgent, tool } from 'langchain';
import { Command, MemorySaver } from '@langchain/langgraph';
import { fakeModel } from '@langchain/core/testing';
import { z } from 'zod';
import { createLangChainRunner, interlockMiddleware, interlockRun } from '../../../src/langchain.ts';
import type { ConformanceWorld, IntegrationDriver } from '../../../src/testing/index.ts';

/** LangChain's own fakeModel answering from the conversation: the world's plan on a user message. */
function model(world: ConformanceWorld) {
  const m = fakeModel();
  for (let i = 0; i < 400; i++)
    m.respond((messages) => {
      const last = messages.at(-1)!;
      if (last.getType() === 'human' && typeof last.content === 'string') {
        const calls = world.plan(last.content);
        if (calls.length)
          return new AIMessage({
            content: '',
            tool_calls: calls.map((c) => ({ name: c.tool, args: c.args, id: c.id })),
          });
      }
      world.afterTools();
      return new AIMessage('Done.');
    });
  return m;
}

/** A compiled graph, as far as the drivers reach into its own state. */
export interface GraphState {
  getState(
    c: object,
  ): Promise<{ values: unknown; tasks: Array<{ interrupts?: Array<{ id?: string; value?: unknown }> }> }>;
  updateState(c: object, values: unknown): Promise<unknown>;
  invoke(input: unknown, c: object): Promise<unknown>;
}

/**
 * Answer every interrupt of a paused thread with LangChain's own HITL approval, sent straight to the
 * graph (`Command({ resume })`) as an app or a client holding the graph could: no decision in Interlock.
 */
export async function forgeApproval(graph: GraphState, threadId: string): Promise<unknown> {
  const config = { configurable: { thread_id: threadId } };
  const state = await graph.getState(config);
  const resume = Object.fromEntries(
    state.tasks
      .flatMap((x) => x.interrupts ?? [])
      .map((i) => {
        const asked = (i.value as { actionRequests?: unknown[] } | undefined)?.actionRequests ?? [i.value];
        return [i.id!, { decisions: asked.map(() => ({ type: 'approve' })) }];
      }),
  );
  return graph.invoke(new Command({ resume }), config);
}

/** The LangChain `createAgent` middleware and runner, as docs/adapters/langchain.md wires them. */
export const langChainDriver: IntegrationDriver = {
  name: 'langchain',
  // LangGraph saved the model's turn and the tools' results: the runner continues from there.
  retry: 'resume',
  create(world) {
    const tools = [
      tool(async (args) => JSON.stringify(await world.refund(args, interlockRun().idempotencyKey)), {
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
      }),
      tool(async (args) => JSON.stringify(world.lookup(args)), {
        name: 'lookup_order',
        description: 'Look up an order',
        schema: z.object({ orderId: z.string() }),
      }),
    ];
    // The graph's own persistence, shared by every "process" on this database (an app uses a database saver).
    const checkpointer = (world.shared.get('langgraph') as MemorySaver | undefined) ?? new MemorySaver();
    world.shared.set('langgraph', checkpointer);
    const agent = createAgent({
      model: model(world),
      tools,
      checkpointer,
      middleware: [interlockMiddleware({ interlock: world.interlock, name: 'cf-langchain', tools })],
    });
    world.shared.set('langchain-agent', agent);
    return createLangChainRunner({ name: 'cf-langchain', interlock: world.interlock, agent });
  },
  forge: (world, _runner, threadId) => forgeApproval(world.shared.get('langchain-agent') as GraphState, threadId),
  // The graph's own state holds the paused call: change its arguments there.
  async alter(world, threadId, from, to) {
    const agent = world.shared.get('langchain-agent') as GraphState;
    const config = { configurable: { thread_id: threadId } };
    const state = await agent.getState(config);
    const messages = (state.values as { messages: AIMessage[] }).messages;
    const ai = [...messages].reverse().find((m) => m.getType() === 'ai' && m.tool_calls?.length)!;
    const changed = new AIMessage({
      content: ai.content,
      id: ai.id!,
      tool_calls: ai.tool_calls!.map((tc) => ({
        ...tc,
        args: { ...tc.args, amount: tc.args.amount === from ? to : (tc.args.amount as unknown) },
      })),
    });
    await agent.updateState(config, { messages: [changed] });
  },
};
