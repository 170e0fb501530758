/**
 * The OpenAI Agents SDK in "Cost of oversight, per adapter": the refund tool with the SDK's own
 * `needsApproval` (over $500), the thread's items and the paused run's serialized `RunState` stored
 * by the application in a table of the same database (bench/lib/app-store.ts), against
 * `createOpenAIAgentsAgent` on Interlock's store. Both use the SDK's own offline model
 * (`ScriptedModel`, test/support/openai-agents-model.ts).
 */
import { Agent, RunState, tool, type AgentInputItem } from '@openai/agents-core';
import { createOpenAIAgentsAgent } from '../../src/openai-agents.ts';
import {
  refundSchema,
  runner,
  supportAgent,
  supportModel,
  type RefundLog,
} from '../../test/support/openai-agents-model.ts';
import { z } from '../lib/root-packages.ts';
import { postgresAppStore, sqliteAppStore } from '../lib/app-store.ts';
import type { Scratch } from '../lib/backends.ts';
import {
  expect,
  interlockSide,
  MODEL_TURNS,
  type OversightAgent,
  type OversightBackend,
  oversightInterlock,
  pairOf,
} from '../lib/oversight-agent.ts';

/** test/support's order-support agent, with the SDK's own approval on refunds over $500. */
function approvingAgent(log: RefundLog) {
  return new Agent({
    name: 'support',
    instructions: 'You help customers.',
    model: supportModel(MODEL_TURNS),
    tools: [
      tool({
        name: 'lookup_order',
        description: 'Look up an order',
        parameters: z.object({ orderId: z.string() }),
        execute: async ({ orderId }) => JSON.stringify({ orderId, status: 'delivered' }),
      }),
      tool({
        name: 'issue_refund',
        description: 'Refund an order',
        parameters: refundSchema,
        needsApproval: async (_ctx, args) => args.amount > 500,
        execute: async (args) => {
          log.runs.push({ args, key: undefined });
          return `refunded ${args.amount} on ${args.orderId}`;
        },
      }),
    ],
  });
}

async function own(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const app = backend === 'sqlite' ? sqliteAppStore(scratch, 'oa-own') : await postgresAppStore(scratch, 'oa_own');
  const log: RefundLog = { runs: [] };
  const agent = approvingAgent(log);
  /** A user message: load the thread's items, run, store the new items (or the paused run's state). */
  async function turn(threadId: string, input: string) {
    const history = (await app.load(threadId)) as AgentInputItem[];
    const r = await runner.run(agent, [...history, { role: 'user', content: input }]);
    if (r.interruptions.length) await app.save(threadId, history.length, [], r.state.toString());
    else await app.save(threadId, history.length, r.history.slice(history.length));
    return r;
  }
  return {
    label: "OpenAI Agents SDK · needsApproval + RunState in the app's table",
    async auto(threadId, input) {
      const r = await turn(threadId, input);
      expect(!r.interruptions.length && !!r.finalOutput, `OpenAI Agents auto turn on ${threadId} paused`);
    },
    async cycle(threadId, input) {
      const paused = await turn(threadId, input);
      expect(paused.interruptions.length === 1, `OpenAI Agents gated turn on ${threadId} did not pause`);
      // The reviewer approves: the app loads the run's state, approves, resumes and stores the outcome.
      const held = (await app.load(threadId)).length;
      const saved = await app.paused(threadId);
      expect(saved !== undefined, `OpenAI Agents paused run of ${threadId} was not stored`);
      const state = await RunState.fromString(agent, saved!);
      for (const i of state.getInterruptions()) state.approve(i);
      const done = await runner.run(agent, state);
      expect(!done.interruptions.length && !!done.finalOutput, `OpenAI Agents resume on ${threadId} did not finish`);
      await app.save(threadId, held, done.history.slice(held), null);
    },
    runs: () => log.runs.length,
    commits: () => app.commits(),
    close: () => app.close(),
  };
}

async function withInterlock(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const { il, store } = await oversightInterlock(scratch, backend, 'oa-interlock');
  const log: RefundLog = { runs: [] };
  const agent = createOpenAIAgentsAgent({
    interlock: il,
    agent: supportAgent(supportModel(MODEL_TURNS), log),
    RunState,
    run: (a, input) => runner.run(a, input),
  });
  return interlockSide({
    label: 'OpenAI Agents SDK · createOpenAIAgentsAgent',
    framework: 'OpenAI Agents',
    il,
    store,
    agent,
    runs: () => log.runs.length,
  });
}

/** The OpenAI Agents SDK pair on `backend`. */
export const openAIAgentsPair = pairOf('OpenAI Agents SDK', own, withInterlock);
