import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { createAiSdkAgent } from '../../../src/ai-sdk.ts';
import type { ConformanceWorld, IntegrationDriver } from '../../../src/testing/index.ts';
import { conformanceModel } from './ai-model.ts';

function tools(world: ConformanceWorld) {
  return {
    issue_refund: tool({
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
      execute: async (args, options) =>
        world.refund(args, (options as { interlock?: { idempotencyKey: string } }).interlock?.idempotencyKey),
    }),
    lookup_order: tool({
      description: 'Look up an order',
      inputSchema: z.object({ orderId: z.string() }),
      execute: async (args) => world.lookup(args),
    }),
  };
}

/** The AI SDK adapter, as docs/adapters/ai-sdk.md wires it. */
export const aiSdkDriver: IntegrationDriver = {
  name: 'ai-sdk',
  // Nothing of a failed generate is saved: run the message again.
  retry: 'invoke',
  create(world) {
    const model = conformanceModel(world);
    return createAiSdkAgent({
      name: 'cf-ai-sdk',
      interlock: world.interlock,
      tools: tools(world),
      generate: (i) => generateText({ model, stopWhen: stepCountIs(5), ...i }),
    });
  },
  // The tools handed to generateText are the app's own, not the ones Interlock wrapped.
  miswired(world) {
    const model = conformanceModel(world);
    const own = tools(world);
    return createAiSdkAgent({
      name: 'cf-ai-sdk',
      interlock: world.interlock,
      tools: own,
      generate: (i) => generateText({ model, stopWhen: stepCountIs(5), messages: i.messages, tools: own }),
    });
  },
};
