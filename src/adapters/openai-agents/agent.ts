import type { AgentInputItem, FunctionTool } from '@openai/agents-core';
import { ConfigError } from '../../core/index.ts';
import { toInputItems } from './messages.ts';
import { createCallGate, leasedRuns, turnThread, schemasOf, guardTool, runTurn } from '../core/index.ts';
import { gated, HOW, type OpenAIContext } from './gated.ts';
import { resumeRun, runAndSave } from './runs.ts';
import type { AnyAgent, OpenAIAgentsAgent, OpenAIAgentsOptions, OpenAIAgentsRunResult } from './types.ts';

export { interlockRun, type InterlockExecution } from '../core/index.ts';
export type { OpenAIAgentsAgent, OpenAIAgentsOptions, OpenAIAgentsRunResult, RunStateClass } from './types.ts';

/**
 * Put Interlock in front of an OpenAI Agents SDK agent's function tools. Each tool's
 * `needsApproval` is answered by Interlock's policy and recorded decisions, and its
 * `invoke` runs under the execute-once ledger with the authorized (or edited)
 * arguments. A gated call interrupts the run the SDK's way and opens a durable
 * Interlock request; the serialized `RunState` is stored with it, so `resume` —
 * or the Interlock worker — continues the run in any process.
 *
 * @example
 * const support = createOpenAIAgentsAgent({ interlock, agent, RunState, run: (a, i) => run(a, i) });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt'
 * await support.resume(r.threadId);                        // after a reviewer decided
 */
export function createOpenAIAgentsAgent(o: OpenAIAgentsOptions): OpenAIAgentsAgent {
  checkOptions(o);
  const il = o.interlock;
  const name = o.name ?? o.agent.name;
  const version = o.version ?? '1';
  const functionTools = o.agent.tools.filter((t): t is FunctionTool => t.type === 'function');
  refuseSubAgents(o.agent);
  // The agent's own tool objects run only through Interlock from now on: a `run` that runs the app's
  // agent instead of the one Interlock passes in fails closed instead of running them ungated.
  const originals = new Map(
    functionTools.map((t) => [t.name, guardTool(t, 'invoke', t.name, 'OpenAI Agents adapter', HOW)] as const),
  );
  registerSchemas(o, functionTools);
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const ctx: OpenAIContext = { o, name, gate, originals };

  const held = leasedRuns<OpenAIAgentsRunResult>(il, { agent: name, version, integration: 'openai-agents' });

  return {
    name,
    version,
    async invoke(input, opts = {}) {
      const threadId = turnThread(input, opts);
      return held(threadId, true, async (run) => {
        // A later turn starts from the thread's history, as a chat continues.
        const prior = toInputItems(run.messages) as AgentInputItem[];
        const items: string | AgentInputItem[] = prior.length ? [...prior, { role: 'user', content: input }] : input;
        const agent = gated(ctx, threadId, runTurn(run.messages.length, input));
        return runAndSave(ctx, run, threadId, agent, items, prior.length);
      });
    },
    async resume(threadId) {
      return held(threadId, false, (run) => resumeRun(ctx, run, threadId));
    },
    async abort(threadId, by = `agent:${name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}

/** Refuse options the adapter cannot run with, when it is built. */
function checkOptions(o: OpenAIAgentsOptions): void {
  if (!o || typeof o !== 'object')
    throw new ConfigError('createOpenAIAgentsAgent needs options: { interlock, agent, RunState, run }.');
  if (!o.interlock) throw new ConfigError('createOpenAIAgentsAgent: "interlock" is required.');
  if (!o.agent || !Array.isArray(o.agent.tools))
    throw new ConfigError('createOpenAIAgentsAgent: "agent" must be your Agent (new Agent({ name, tools, ... })).');
  if (typeof o.RunState?.fromString !== 'function')
    throw new ConfigError('createOpenAIAgentsAgent: "RunState" must be the RunState class of @openai/agents(-core).');
  if (typeof o.run !== 'function')
    throw new ConfigError('createOpenAIAgentsAgent: "run" must be (agent, input) => run(agent, input).');
}

/** The SDK keeps a tool's JSON schema only; the zod schemas passed in `schemas` validate reviewers' edits. */
function registerSchemas(o: OpenAIAgentsOptions, functionTools: FunctionTool[]): void {
  const descriptions = new Map(functionTools.map((t) => [t.name, t.description]));
  o.interlock.registerTools(
    schemasOf(
      Object.fromEntries(
        Object.entries(o.schemas ?? {}).map(([k, schema]) => [
          k,
          { parameters: schema, ...(descriptions.has(k) ? { description: descriptions.get(k) } : {}) },
        ]),
      ),
    ),
  );
}

/**
 * Sub-agents reached by `handoff()` or `agent.asTool()` run their own tools, which this adapter does
 * not wrap: refuse them when the agent is built rather than let their tools pass the policy by.
 */
function refuseSubAgents(agent: AnyAgent): void {
  const subTools = agent.tools.filter((t) => typeof (t as { on?: unknown }).on === 'function').map((t) => t.name);
  const handoffs = (agent.handoffs ?? []).length;
  if (handoffs === 0 && subTools.length === 0) return;
  throw new ConfigError(
    `createOpenAIAgentsAgent: agent "${agent.name}" reaches sub-agents (${[
      ...(handoffs ? [`${handoffs} handoff(s)`] : []),
      ...subTools.map((n) => `asTool "${n}"`),
    ].join(
      ', ',
    )}), whose tools Interlock cannot gate through this adapter. Give the sub-agents' tools to the agent itself, or build the tree with Interlock's own agents (agentTool, handoffs; docs/multi-agent.md).`,
    { agent: agent.name },
  );
}
