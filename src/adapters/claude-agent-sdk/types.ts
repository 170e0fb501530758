import type {
  McpSdkServerConfigWithInstance,
  Options,
  SDKMessage,
  SDKResultMessage,
  SdkMcpToolDefinition,
} from '@anthropic-ai/claude-agent-sdk';
import type { Interlock, RunnerResult, ThreadRunner, ToolSchemaEntry } from '../../engine/index.ts';
import type { CallGateOptions } from '../core/index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyTool = SdkMcpToolDefinition<any>;
/** What an in-process tool's handler returns (an MCP `CallToolResult`). */
export type ClaudeToolResult = Awaited<ReturnType<AnyTool['handler']>>;
/** One of your in-process tools, as the SDK's `tool(name, description, shape, handler)` returns it. */
export type ClaudeTool = Omit<AnyTool, 'handler'> & {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (args: any, extra: unknown) => Promise<ClaudeToolResult>;
};

/** The SDK's `query`, or your wrapper around it: it must pass on the `options` Interlock hands it. */
export type ClaudeQuery = (params: { prompt: string; options: Options }) => AsyncIterable<SDKMessage>;

/** What a reviewer decided for a call that waited, as the resume prompt tells the model. */
export interface DecidedCall {
  /** The tool's name as Claude calls it (`mcp__<server>__<tool>`, `Bash`…). */
  tool: string;
  /** The arguments the model proposed (what to call again when approved). */
  args: Record<string, unknown>;
  state: 'approved' | 'not_run' | 'pending';
  /** For `not_run`: what the model is told instead of a result (the reviewer's message or answer). */
  message?: string;
}

/** Options of {@link createClaudeAgent}. */
export interface ClaudeAgentOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  interlock: Interlock;
  /** Threads carry this name; the worker resumes them with the agent of that name (default `claude-agent`). */
  name?: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  /** One session turn: `(params) => query(params)` with the SDK's `query`, passing Interlock's `options` on. */
  query: ClaudeQuery;
  /** The SDK's `createSdkMcpServer`, to serve your `tools` to Claude behind Interlock. */
  createSdkMcpServer?: (o: { name: string; version?: string; tools: ClaudeTool[] }) => McpSdkServerConfigWithInstance;
  /**
   * Your in-process tools (the SDK's `tool()`), served as the MCP server `server`: each runs once under
   * Interlock's ledger with the authorized (or edited) arguments, and only through this adapter.
   */
  tools?: ClaudeTool[];
  /**
   * Zod schemas of the tools reviewers may edit, by the policy's tool name (`z.object(shape)` of your
   * tool's shape): an edit is validated before it is accepted (a tool without one can be approved,
   * rejected or answered, not edited).
   */
  schemas?: Record<string, ToolSchemaEntry['schema']>;
  /** The name of the in-process server of `tools` (default `interlock`): Claude calls them `mcp__<server>__<tool>`. */
  server?: string;
  /**
   * The rest of the SDK's options (cwd, env, model, allowedTools, mcpServers, settingSources…). Interlock
   * adds its `PreToolUse` hook and `canUseTool`; `bypassPermissions` and a `canUseTool` of your own are refused.
   */
  options?: Omit<Options, 'resume' | 'canUseTool' | 'sessionStore'>;
  /**
   * How the policy names a tool Claude calls, where the default does not suit (`undefined`: the default).
   * Default: your `tools` by their own name (`issue_refund`), every other tool as Claude names it
   * (`Bash`, `Edit`, `WebFetch`, `Agent`, `mcp__github__create_issue`).
   */
  toolName?: (claudeName: string) => string | undefined;
  /**
   * How long the `PreToolUse` hook holds a call that needs a person, waiting for the decision inside
   * the same turn (ms, default 0). A decision within it lets the turn go on; without one the call is
   * refused to the model, the turn ends, and `resume` continues the session once a reviewer decided.
   */
  holdMs?: number;
  /**
   * The longest a turn may take (ms; default: no limit). Past it the SDK's process is aborted and the
   * turn fails with {@link ClaudeTurnError}: nothing of it is saved, and the thread's lease is given back.
   */
  turnTimeoutMs?: number;
  /** The user message `resume` sends with the decisions (default: {@link resumePrompt}). */
  resumePrompt?: (decided: readonly DecidedCall[]) => string;
}

/** What a run of a Claude Agent SDK thread came to. */
export interface ClaudeRunResult extends RunnerResult {
  /** The SDK session the thread continues (`resume: sessionId`). */
  sessionId?: string;
  /** The SDK's result message of this turn (undefined when nothing ran: busy, or still waiting). */
  result?: SDKResultMessage;
}

/** A Claude Agent SDK agent behind Interlock: one SDK session per thread. */
export interface ClaudeAgent extends ThreadRunner {
  invoke(input: string, opts?: { threadId?: string }): Promise<ClaudeRunResult>;
  resume(threadId: string): Promise<ClaudeRunResult>;
}
