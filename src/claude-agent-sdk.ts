/**
 * `interlock-approvals/claude-agent-sdk`: Interlock in front of every tool call of a Claude Agent SDK
 * session — built-in tools, MCP tools and your in-process tools. Needs `@anthropic-ai/claude-agent-sdk`
 * 0.3.332+ (an optional peer dependency: install it in your project).
 * @example
 * import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
 * import { createClaudeAgent } from 'interlock-approvals/claude-agent-sdk';
 * const support = createClaudeAgent({ interlock, query: (p) => query(p), createSdkMcpServer, tools: [refund], server: 'shop' });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt' | 'end_turn'
 * await support.resume(r.threadId);                        // after a reviewer decided (or let the worker do it)
 */
export {
  createClaudeAgent,
  interlockRun,
  resumePrompt,
  ClaudeTurnError,
  type ClaudeAgent,
  type ClaudeAgentOptions,
  type ClaudeQuery,
  type ClaudeRunResult,
  type ClaudeTool,
  type DecidedCall,
  type InterlockExecution,
} from './adapters/claude-agent-sdk/agent.ts';
