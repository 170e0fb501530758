/**
 * `interlock-approvals/openai-agents`: Interlock in front of an OpenAI Agents SDK agent's function tools.
 * Needs `@openai/agents-core` 0.20+ (or `@openai/agents`; an optional peer dependency: install it in your project).
 * @example
 * import { Agent, RunState, run } from '@openai/agents';
 * import { createOpenAIAgentsAgent } from 'interlock-approvals/openai-agents';
 * const support = createOpenAIAgentsAgent({ interlock, agent, RunState, run: (a, i) => run(a, i) });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt' | 'end_turn'
 * await support.resume(r.threadId);                        // after a reviewer decided (or let the worker do it)
 */
export {
  createOpenAIAgentsAgent,
  interlockRun,
  type OpenAIAgentsAgent,
  type OpenAIAgentsOptions,
  type OpenAIAgentsRunResult,
  type RunStateClass,
  type InterlockExecution,
} from './adapters/openai-agents/agent.ts';
