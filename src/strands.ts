/**
 * `interlock-approvals/strands`: Interlock as the hook provider of a Strands Agents (TypeScript) agent.
 * Needs `@strands-agents/sdk` 1.19+ (an optional peer dependency: install it in your project).
 * @example
 * import { Agent } from '@strands-agents/sdk';
 * import { createStrandsAgent } from 'interlock-approvals/strands';
 * const support = createStrandsAgent({ name: 'support', interlock, agent: () => new Agent({ model, tools }) });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt' | 'end_turn'
 * await support.resume(r.threadId);                        // after a reviewer decided (or let the worker do it)
 * // A Graph or Swarm whose nodes ask before they run (BeforeNodeCallEvent): createStrandsGraph.
 */
export {
  createStrandsAgent,
  interlockRun,
  INTERRUPT_NAME,
  type StrandsAgent,
  type StrandsAgentOptions,
  type StrandsRunInput,
  type StrandsRunResult,
  type StrandsSaved,
  type InterlockExecution,
} from './adapters/strands/agent.ts';
export {
  createStrandsGraph,
  type StrandsGraph,
  type StrandsGraphOptions,
  type StrandsGraphResult,
} from './adapters/strands/graph.ts';
