import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { InMemoryStore } from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { createMastraAgent, type MastraAgent } from '../../../src/mastra.ts';
import type { ConformanceWorld, IntegrationDriver } from '../../../src/testing/index.ts';
import { mastraModel } from '../mastra-model.ts';

/** Mastra's own mock model answering from the conversation: the world's plan on a user message. */
function model(world: ConformanceWorld) {
  return mastraModel(
    (text) => world.plan(text),
    () => {
      world.afterTools();
      return 'Done.';
    },
  );
}

function tools(world: ConformanceWorld) {
  return {
    issue_refund: createTool({
      id: 'issue_refund',
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
      execute: async (args, ctx) =>
        world.refund(args, (ctx as { interlock?: { idempotencyKey: string } }).interlock?.idempotencyKey),
    }),
    lookup_order: createTool({
      id: 'lookup_order',
      description: 'Look up an order',
      inputSchema: z.object({ orderId: z.string() }),
      execute: async (args) => world.lookup(args),
    }),
  };
}

/**
 * The agent in its own Mastra with its own in-memory storage: each world is a process, and nothing of
 * Mastra's storage is shared between them — Interlock's checkpoint carries the paused run.
 */
function registered(agent: Agent): Agent {
  new Mastra({ agents: { [agent.id]: agent }, storage: new InMemoryStore(), logger: false });
  return agent;
}

/** The Mastra adapter, as docs/adapters/mastra.md wires it. */
export const mastraDriver: IntegrationDriver = {
  name: 'mastra',
  // Nothing of a failed generate is saved: run the message again.
  retry: 'invoke',
  create(world) {
    const agent = registered(
      new Agent({
        id: 'cf-mastra',
        name: 'Refunds',
        instructions: 'You help customers.',
        model: model(world),
        tools: tools(world),
      }),
    );
    return createMastraAgent({ interlock: world.interlock, agent });
  },
  // A sub-agent as Mastra builds one (agents: { … }): refused loudly, its tools would run inside a tool call.
  subAgent(world) {
    const desk = new Agent({
      id: 'cf-mastra-desk',
      name: 'Desk',
      instructions: 'Refunds.',
      model: model(world),
      tools: tools(world),
    });
    const front = registered(
      new Agent({
        id: 'cf-mastra-front',
        name: 'Front',
        instructions: 'Route refunds.',
        model: model(world),
        agents: { desk },
      }),
    );
    return createMastraAgent({ interlock: world.interlock, agent: front });
  },
  // The approval given to Mastra itself: its own approveToolCall on the paused run, around Interlock.
  async forge(world, runner, threadId) {
    const saved = await world.interlock.threads.loadLatest(threadId);
    const runId = (saved.checkpoint?.state as { framework?: { runId?: string } } | undefined)?.framework?.runId;
    if (!runId) throw new Error(`thread ${threadId} has no paused Mastra run`);
    return (runner as MastraAgent).agent.approveToolCallGenerate({ runId });
  },
  // Tools built per run (a tools function): not the objects Interlock gated.
  miswired(world) {
    const agent = registered(
      new Agent({
        id: 'cf-mastra',
        name: 'Refunds',
        instructions: 'You help customers.',
        model: model(world),
        tools: () => tools(world),
      }),
    );
    return createMastraAgent({ interlock: world.interlock, agent });
  },
};
