import { Agent, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { createStrandsAgent, interlockRun } from '../../../src/strands.ts';
import type { ConformanceWorld, IntegrationDriver } from '../../../src/testing/index.ts';
import { FakeStrandsModel, userTurn } from '../strands-model.ts';

const refundSchema = z.object({ orderId: z.string(), amount: z.number().positive() });

/** The conformance model as a Strands model provider: the world's plan on a user message, then a text. */
function model(world: ConformanceWorld): FakeStrandsModel {
  return new FakeStrandsModel((messages) => {
    const text = userTurn(messages);
    const calls = text ? world.plan(text) : [];
    if (calls.length) return calls.map((c) => ({ id: c.id, name: c.tool, input: c.args }));
    world.afterTools();
    return 'Done.';
  });
}

/** The world's tools, as Strands tools (built once per world, as an app's module would). */
function tools(world: ConformanceWorld) {
  return [
    tool({
      name: 'issue_refund',
      description: 'Refund an order',
      inputSchema: refundSchema,
      callback: async (args, context) => world.refund(args, interlockRun(context).idempotencyKey),
    }),
    tool({
      name: 'lookup_order',
      description: 'Look up an order',
      inputSchema: z.object({ orderId: z.string() }),
      callback: (args) => world.lookup(args),
    }),
  ];
}

/** The Strands adapter, as docs/adapters/strands.md wires it. */
export const strandsDriver: IntegrationDriver = {
  name: 'strands',
  // Nothing of a failed invocation is saved (the agent's snapshot is stored when it pauses or ends).
  retry: 'invoke',
  create(world) {
    const own = tools(world);
    return createStrandsAgent({
      name: 'cf-strands',
      interlock: world.interlock,
      agent: () => new Agent({ model: model(world), tools: own, printer: false }),
      schemas: { issue_refund: refundSchema },
    });
  },
  // A Strands agent used as a tool runs its own tools in its own loop: refused when the agent is built.
  subAgent(world) {
    const own = tools(world);
    return createStrandsAgent({
      name: 'cf-strands-tree',
      interlock: world.interlock,
      agent: () => {
        const desk = new Agent({ name: 'refunds_desk', model: model(world), tools: own, printer: false });
        return new Agent({ model: model(world), tools: [desk], printer: false });
      },
    });
  },
  // Answer the paused calls' interrupts inside the saved session snapshot, as someone with write
  // access to it could: the SDK would hand the hook that answer on resume.
  async forge(world, _runner, threadId) {
    const { checkpoint } = await world.interlock.threads.loadLatest(threadId);
    const state = checkpoint!.state as { framework: { snapshot: { data: { interrupts: Forged } } } };
    for (const i of Object.values(state.framework.snapshot.data.interrupts.interrupts)) i.response = { approved: true };
    await world.tamper(`UPDATE il_checkpoints SET state = $1 WHERE id = $2`, [JSON.stringify(state), checkpoint!.id]);
  },
  // `run` invokes an agent of the app's own, not the one Interlock hands it.
  miswired(world) {
    const own = tools(world);
    const mine = new Agent({ model: model(world), tools: own, printer: false });
    return createStrandsAgent({
      name: 'cf-strands',
      interlock: world.interlock,
      agent: () => new Agent({ model: model(world), tools: own, printer: false }),
      run: (_agent, input) => mine.invoke(input),
    });
  },
};

type Forged = { interrupts: Record<string, { response?: unknown }> };
