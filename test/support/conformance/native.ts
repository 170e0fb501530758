import { z } from 'zod';
import { agentTool, createAgent, tool } from '../../../src/index.ts';
import type { ConformanceWorld } from '../../../src/testing/index.ts';
import type { IntegrationDriver } from '../../../src/testing/index.ts';
import { conformanceModel } from './ai-model.ts';

function refundsAgent(world: ConformanceWorld, name: string) {
  return createAgent({
    name,
    version: '1',
    model: conformanceModel(world),
    system: 'You help customers.',
    interlock: world.interlock,
    tools: [
      tool({
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
        execute: async (args, { idempotencyKey }) => world.refund(args, idempotencyKey),
      }),
      tool({
        name: 'lookup_order',
        description: 'Look up an order',
        schema: z.object({ orderId: z.string() }),
        execute: async (args) => world.lookup(args),
      }),
    ],
  });
}

/** Interlock's own agent loop, as the README wires it. */
export const nativeDriver: IntegrationDriver = {
  name: 'native',
  // The loop checkpoints the model's turn before its calls run: resume continues from it.
  retry: 'resume',
  create: (world) => refundsAgent(world, 'cf-native'),
  // An agent used as a tool (docs/multi-agent.md): the sub-agent's calls are gated on its child thread.
  subAgent: (world) =>
    createAgent({
      name: 'cf-native-front',
      version: '1',
      model: conformanceModel(world),
      system: 'You route refunds.',
      interlock: world.interlock,
      tools: [
        agentTool(refundsAgent(world, 'cf-native-desk'), {
          name: 'delegate',
          description: 'Hand a task to the refunds desk.',
        }),
      ],
    }),
};
