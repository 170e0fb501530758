import { Agent, RunState, Runner, tool } from '@openai/agents-core';
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents-core/testing';
import { z } from 'zod';
import { createOpenAIAgentsAgent } from '../../../src/openai-agents.ts';
import type { ConformanceWorld, IntegrationDriver } from '../../../src/testing/index.ts';

const refundSchema = z.object({ orderId: z.string(), amount: z.number().positive() });
const runner = new Runner({ tracingDisabled: true });

/** The SDK's own ScriptedModel answering from the conversation: the world's plan on a user message. */
function model(world: ConformanceWorld): ScriptedModel {
  const step = modelResponder((call) => {
    const input = call.request.input;
    const items = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
    const last = items.at(-1) as { role?: string; content?: unknown };
    if (last.role === 'user' && typeof last.content === 'string') {
      const calls = world.plan(last.content);
      if (calls.length) return calls.map((c) => functionCall(c.tool, c.args, { callId: c.id }));
    }
    world.afterTools();
    return [assistantMessage('Done.')];
  });
  return new ScriptedModel(Array.from({ length: 200 }, () => step));
}

function agent(world: ConformanceWorld) {
  return new Agent({
    name: 'cf-openai',
    instructions: 'You help customers.',
    model: model(world),
    tools: [
      tool({
        name: 'issue_refund',
        description: 'Refund an order',
        parameters: refundSchema,
        execute: async (args, _ctx, details) =>
          JSON.stringify(
            await world.refund(
              args,
              (details as { interlock?: { idempotencyKey: string } } | undefined)?.interlock?.idempotencyKey,
            ),
          ),
      }),
      tool({
        name: 'lookup_order',
        description: 'Look up an order',
        parameters: z.object({ orderId: z.string() }),
        execute: async (args) => JSON.stringify(world.lookup(args)),
      }),
    ],
  });
}

/** The refunds agent behind a handoff: the SDK's own sub-agent. */
function withSubAgent(world: ConformanceWorld): Agent {
  const desk = agent(world);
  return new Agent({ name: 'cf-openai-front', instructions: 'Route refunds.', model: model(world), handoffs: [desk] });
}

/** The OpenAI Agents SDK adapter, as docs/adapters/openai-agents.md wires it. */
export const openAIAgentsDriver: IntegrationDriver = {
  name: 'openai-agents',
  // Nothing of a failed run is saved (its RunState is stored when it pauses or ends): run the message again.
  retry: 'invoke',
  create: (world) =>
    createOpenAIAgentsAgent({
      interlock: world.interlock,
      agent: agent(world),
      RunState,
      run: (a, input) => runner.run(a, input),
      schemas: { issue_refund: refundSchema },
    }),
  // Sub-agents are refused at construction: their tools are not the agent's to gate.
  subAgent: (world) =>
    createOpenAIAgentsAgent({
      interlock: world.interlock,
      agent: withSubAgent(world),
      RunState,
      run: (a, input) => runner.run(a, input),
    }),
  // Approve inside the serialized RunState Interlock keeps, as someone with write access to it could.
  async forge(world, _runner, threadId) {
    const { checkpoint } = await world.interlock.threads.loadLatest(threadId);
    const state = checkpoint!.state as { framework: string };
    const forged = await RunState.fromString(agent(world), state.framework);
    for (const i of forged.getInterruptions()) forged.approve(i);
    await world.tamper(`UPDATE il_checkpoints SET state = $1 WHERE id = $2`, [
      JSON.stringify({ ...state, framework: forged.toString() }),
      checkpoint!.id,
    ]);
  },
  // `run` runs the app's own Agent, not the one Interlock hands it.
  miswired(world) {
    const own = agent(world);
    return createOpenAIAgentsAgent({
      interlock: world.interlock,
      agent: own,
      RunState,
      run: (_a, input) => runner.run(own, input),
      schemas: { issue_refund: refundSchema },
    });
  },
};
