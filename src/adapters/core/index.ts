export { blockedText } from '../../engine/index.ts';
export {
  createCallGate,
  runTurn,
  CallRefusedError,
  type AdapterCall,
  type CallCheck,
  type CallGate,
  type CallGateOptions,
  type CallRun,
  type RunCalls,
  type WaitingCall,
} from './call-gate.ts';
export {
  openThreadRun,
  withThreadRun,
  busyResult,
  settleRun,
  leasedRuns,
  turnThread,
  ADAPTER_STATE_VERSION,
  type AdapterState,
  type ThreadRun,
} from './thread-run.ts';
export {
  runOwner,
  interruptsOf,
  lastText,
  schemasOf,
  interlockRun,
  withExecution,
  type InterlockExecution,
} from './results.ts';
export { guardTool, noteBypass, watchWiring, NotWiredError } from './wiring.ts';
