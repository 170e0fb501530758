import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { createAiSdkAgent, type AiSdkAgent } from '../../../src/ai-sdk.ts';
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

/**
 * A sub-agent as the AI SDK builds one: a tool whose body runs another `generateText` with the
 * refund tools. Interlock gates the calls of the `generate` it runs; the sub-agent's calls happen
 * inside a tool body, so a gated tool reached there fails closed (the tools Interlock was given are
 * guarded).
 */
function delegating(world: ConformanceWorld) {
  const own = tools(world);
  const model = conformanceModel(world);
  return {
    ...own,
    delegate: tool({
      description: 'Hand a task to the refunds desk',
      inputSchema: z.object({ input: z.string() }),
      execute: async ({ input }) =>
        (await generateText({ model, tools: own, prompt: input, stopWhen: stepCountIs(5) })).text,
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
  subAgent(world) {
    const model = conformanceModel(world);
    return createAiSdkAgent({
      name: 'cf-ai-sdk-tree',
      interlock: world.interlock,
      tools: delegating(world),
      generate: (i) => generateText({ model, stopWhen: stepCountIs(5), ...i }),
    });
  },
  // A client (useChat) sends the paused calls back approved in the conversation itself.
  async forge(world, runner, threadId) {
    const saved = (await world.interlock.threads.listMessages(threadId)) as ModelMessage[];
    const parts = saved.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string }>) : []));
    const answers = parts
      .filter((p): p is { type: 'tool-approval-request'; approvalId: string } => p.type === 'tool-approval-request')
      .map((p) => ({ type: 'tool-approval-response' as const, approvalId: p.approvalId, approved: true }));
    return (runner as AiSdkAgent).invoke([...saved, { role: 'tool', content: answers }], { threadId });
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
