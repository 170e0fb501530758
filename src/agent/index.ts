export { createAgent, type Agent } from './agent.ts';
export { agentTool, handoff } from './delegation.ts';
export { createGraph } from './graph.ts';
export type {
  Graph,
  GraphOptions,
  GraphNode,
  GraphEdge,
  GraphResult,
  GraphInvokeOptions,
  NodeContext,
  BeforeNodeHook,
  BeforeNodeEvent,
  NodeInterruptRequest,
  NodeAnswer,
} from './graph-types.ts';
export { tool, policyFor, type Tool, type ToolContext, type InterruptRequest, type InterruptAnswer } from './tool.ts';
export type { AgentHooks, BeforeToolCallResult, BeforeToolBatchResult, HookCall } from './hooks.ts';
export type {
  AgentOptions,
  AgentResult,
  InvokeOptions,
  Interrupt,
  InterruptResponse,
  StopReason,
  BudgetOptions,
  ConfidenceOptions,
} from './types.ts';
export type { LanguageModel, ModelCallOptions, ModelResult } from './model.ts';
export { userMessage, textOf, type Message, type ToolOutput } from './messages.ts';
export { LOOP_STATE_VERSION, sameMajor } from './state.ts';
