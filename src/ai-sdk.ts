/**
 * `interlock-approvals/ai-sdk`: Interlock in front of a Vercel AI SDK (v7) agent's tools.
 * Needs `ai` 7 (an optional peer dependency: install it in your project).
 * @example
 * import { createAiSdkAgent } from 'interlock-approvals/ai-sdk';
 * const support = createAiSdkAgent({
 *   name: 'order-support', interlock, tools: { lookupOrder, issueRefund },
 *   generate: (i) => generateText({ model, system, stopWhen: stepCountIs(8), ...i }),
 * });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt' | 'end_turn'
 * await support.resume(r.threadId);                        // after a reviewer decided (or let the worker do it)
 */
export {
  createAiSdkAgent,
  interlockRun,
  type AiSdkAgent,
  type AiSdkAgentOptions,
  type AiSdkRunResult,
  type GenerateInput,
  type GenerateOutput,
  type InterlockExecution,
} from './adapters/ai-sdk/agent.ts';
