export { interlockMiddleware } from './middleware.ts';
export { interlockGraphGate, type GraphOutcome } from './graph-gate.ts';
export { createLangChainRunner, type LangChainRunResult, type ResumableGraph } from './runner.ts';
export {
  type InterlockMiddlewareOptions,
  type InterlockInterrupt,
  type InterlockActionRequest,
} from './decide-call.ts';
export { interlockRun, type InterlockExecution } from '../core/index.ts';
