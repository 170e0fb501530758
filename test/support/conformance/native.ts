import { z } from 'zod';
import { createAgent, tool } from '../../../src/index.ts';
import type { IntegrationDriver } from '../../../src/testing/index.ts';
import { conformanceModel } from './ai-model.ts';

/** Interlock's own agent loop, as the README wires it. */
export const nativeDriver: IntegrationDriver = {
  name: 'native',
  // The loop checkpoints the model's turn before its calls run: resume continues from it.
  retry: 'resume',
  create: (world) =>
    createAgent({
      name: 'cf-native',
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
    }),
};
