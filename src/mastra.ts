/**
 * `interlock-approvals/mastra`: Interlock in front of a Mastra agent's tools.
 * Needs `@mastra/core` 1.71+ (an optional peer dependency: install it in your project).
 * @example
 * import { Agent } from '@mastra/core/agent';
 * import { Mastra } from '@mastra/core';
 * import { InMemoryStore } from '@mastra/core/storage';
 * import { createMastraAgent } from 'interlock-approvals/mastra';
 * const support = new Agent({ id: 'support', name: 'Support', instructions, model, tools: { issue_refund } });
 * new Mastra({ agents: { support }, storage: new InMemoryStore() });
 * const gated = createMastraAgent({ interlock, agent: support });
 * const r = await gated.invoke('Refund order A-1001');   // r.stopReason: 'interrupt' | 'end_turn'
 * await gated.resume(r.threadId);                        // after a reviewer decided (or let the worker do it)
 */
export {
  createMastraAgent,
  interlockRun,
  type AnyMastraAgent,
  type InterlockExecution,
  type MastraAgent,
  type MastraAgentOptions,
  type MastraGenerateOptions,
  type MastraInput,
  type MastraRunResult,
} from './adapters/mastra/agent.ts';
