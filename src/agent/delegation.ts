import { z } from 'zod';
import { ConfigError } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import type { Tool } from './tool.ts';
import type { Agent, AgentResult, AgentRuntime, TreeInfo } from './types.ts';

export type { TreeInfo } from './types.ts';

/**
 * Agents working for agents: a sub-agent called as a tool ({@link agentTool}) and a handoff that
 * passes the conversation to another agent ({@link handoff}). Both are tools of the calling agent,
 * so the policy gate sees them like any call; what happens after the gate is the loop's
 * (src/agent/call-step.ts). docs/multi-agent.md explains the model.
 */

/** What a parent needs of a native agent beyond its public face. */
export interface AgentInternals {
  rt: AgentRuntime;
  /** Run the agent on a child thread of a tree (`input` only when the child has not started yet). */
  runChild(input: string | null, childThreadId: string, tree: TreeInfo): Promise<AgentResult>;
  /** Stop a child thread and, below it, its own children; cancels their open requests. */
  abortTree(threadId: string, by: string): Promise<void>;
}

/** Key of an agent's {@link AgentInternals} (not enumerable, not part of the public API). */
export const INTERNALS: unique symbol = Symbol('interlock.agent.internals');
/** Key of a delegating tool's {@link Delegation}. */
export const DELEGATE: unique symbol = Symbol('interlock.delegate');

/** What a delegating tool hands work to. */
export interface Delegation {
  kind: 'subagent' | 'handoff';
  agent: Agent;
}

/** The delegation a tool carries, if it is one. */
export function delegationOf(t: Tool): Delegation | undefined {
  return (t as Tool & { [DELEGATE]?: Delegation })[DELEGATE];
}

/** The internals of an agent made by `createAgent`; a clear error for anything else. */
export function internalsOf(agent: Agent, where: string): AgentInternals {
  const i = (agent as Agent & { [INTERNALS]?: AgentInternals })?.[INTERNALS];
  if (!i) throw new ConfigError(`${where} needs an agent made by createAgent() (got ${typeof agent}).`);
  return i;
}

const subAgentInput = z.object({
  input: z.string().min(1).describe('The task for the sub-agent, in plain words, with every fact it needs.'),
});

/**
 * Use an agent as a tool of another. The parent's model calls it with `{ input }`; the sub-agent
 * runs on a child thread of the parent's (its own messages and checkpoints), and its final answer
 * is the tool's result. Anything that pauses inside it pauses the whole tree: the root thread shows
 * `interrupted`, the request records the path (`context.agentPath`), and on resume the sub-agent
 * continues where it stopped. The tool is gated by the policy like any other (give it a rule, usually `auto`).
 * @example
 * const support = createAgent({ name: 'support', …, tools: [lookUpOrder,
 *   agentTool(refunds, { description: 'Hand a refund to the refunds specialist.' })] });
 */
export function agentTool(agent: Agent, o: { name?: string; description: string }): Tool {
  internalsOf(agent, 'agentTool()');
  const name = o.name ?? `ask_${agent.name}`;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    throw new ConfigError(
      `agentTool(): the tool name ${JSON.stringify(name)} must be 1-64 letters, digits, "_" or "-".`,
    );
  if (!o.description) throw new ConfigError(`agentTool(${name}): "description" tells the model when to use it.`);
  return delegating(name, o.description, subAgentInput, { kind: 'subagent', agent });
}

const handoffInput = z.object({ reason: z.string().optional().describe('Why the conversation moves on.') });

/**
 * Hand the conversation to another agent (swarm style): once the call passes the gate, the thread's
 * next turns are the receiving agent's (its model, instructions, tools and identity) over the same
 * conversation, until it hands off again. Gate it like any tool: `approve` makes a person confirm the
 * handoff. The receiving agent may hand back with a `handoff` of its own.
 */
export function handoff(agent: Agent, o: { name?: string; description?: string } = {}): Tool {
  internalsOf(agent, 'handoff()');
  const name = o.name ?? `transfer_to_${agent.name}`;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    throw new ConfigError(`handoff(): the tool name ${JSON.stringify(name)} must be 1-64 letters, digits, "_" or "-".`);
  return delegating(name, o.description ?? `Hand the conversation to the ${agent.name} agent.`, handoffInput, {
    kind: 'handoff',
    agent,
  });
}

function delegating(name: string, description: string, schema: z.ZodObject, d: Delegation): Tool {
  const t: Tool = {
    name,
    description,
    schema: schema,
    execute: () => {
      // The loop runs delegations itself; reaching this means the tool was used outside an agent.
      throw new ConfigError(`${name} delegates to agent "${d.agent.name}"; it runs only as a tool of createAgent().`);
    },
  };
  Object.defineProperty(t, DELEGATE, { value: d, enumerable: false });
  return t;
}

/** The child threads a checkpointed state still runs (sub-agent calls and graph nodes not finished). */
export function childThreadsOf(state: Record<string, unknown> | undefined): string[] {
  const out: string[] = [];
  const batch = state?.batch as { calls?: Array<{ child?: string; status?: string }> } | null | undefined;
  for (const c of batch?.calls ?? []) if (c.child && c.status !== 'done') out.push(c.child);
  const tasks = state?.tasks as Array<{ child?: string; status?: string }> | undefined;
  for (const t of tasks ?? []) if (t.child && t.status !== 'done') out.push(t.child);
  return out;
}

/** Stop a thread of a tree and every thread below it; their open requests are cancelled. */
export async function abortTree(il: Interlock, threadId: string, by: string): Promise<void> {
  const t = await il.threads.getThread(threadId);
  if (!t) return;
  if (t.status === 'running' || t.status === 'interrupted') await il.threads.abort(threadId, by);
  const { checkpoint } = await il.threads.loadLatest(threadId);
  for (const id of childThreadsOf(checkpoint?.state)) await abortTree(il, id, by);
}
