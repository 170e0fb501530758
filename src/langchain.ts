/**
 * `interlock-approvals/langchain`: Interlock in front of a LangChain `createAgent` agent (in place of
 * `humanInTheLoopMiddleware`). Needs `langchain` 1.x and `@langchain/langgraph` 1.x (optional peer
 * dependencies: install them in your project).
 * @example
 * import { interlockMiddleware, createLangChainRunner } from 'interlock-approvals/langchain';
 * const agent = createAgent({ model, tools, checkpointer, middleware: [interlockMiddleware({ interlock, name: 'support' })] });
 * const support = createLangChainRunner({ name: 'support', interlock, agent });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt'
 * await support.resume(r.threadId);                        // after a reviewer decided (or let the worker do it)
 */
export {
  interlockMiddleware,
  createLangChainRunner,
  interlockGraphGate,
  type GraphOutcome,
  interlockRun,
  type InterlockMiddlewareOptions,
  type InterlockInterrupt,
  type InterlockActionRequest,
  type LangChainRunResult,
  type ResumableGraph,
  type InterlockExecution,
} from './adapters/langchain/index.ts';
