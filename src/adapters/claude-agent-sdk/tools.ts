import type { McpSdkServerConfigWithInstance } from '@anthropic-ai/claude-agent-sdk';
import { canonicalJson } from '../../core/index.ts';
import { guardTool, noteBypass, withExecution, type CallGate, type InterlockExecution } from '../core/index.ts';
import type { RunScope } from './scope.ts';
import type { ClaudeAgentOptions, ClaudeTool } from './types.ts';

type Handler = ClaudeTool['handler'];
type ToolResult = Awaited<ReturnType<Handler>>;

/** The integration's name in wiring errors, and how to wire it. */
export const INTEGRATION = 'Claude Agent SDK adapter';
export const HOW =
  'Pass the options Interlock hands your query function on to the SDK — `query: (params) => query(params)` — and give your tools to createClaudeAgent({ tools }), not to an mcpServers entry of your own.';

/** Your tools' own handlers, by tool name: from now on only the adapter's server calls them. */
export function guardTools(tools: readonly ClaudeTool[]): Map<string, Handler> {
  return new Map(tools.map((t) => [t.name, guardTool(t, 'handler', t.name, INTEGRATION, HOW)] as const));
}

const text = (t: string, isError = false): ToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError } : {}),
});

/**
 * Your tools as one in-process MCP server for a turn: a call runs only when the turn's hook let it
 * (found by Claude's tool_use id, with the arguments the hook saw), once under the ledger with the
 * authorized arguments; the handler gets the idempotency key (`interlockRun(extra)`).
 */
export function gatedServer(
  o: ClaudeAgentOptions,
  gate: CallGate,
  originals: Map<string, Handler>,
  scope: RunScope,
): McpSdkServerConfigWithInstance | undefined {
  if (!o.tools?.length || !o.createSdkMcpServer) return undefined;
  const tools = o.tools.map((t): ClaudeTool => ({
    ...t,
    handler: (args: Record<string, unknown>, extra: unknown) => runGated(gate, originals, scope, t.name, args, extra),
  }));
  return o.createSdkMcpServer({ name: o.server ?? 'interlock', tools });
}

async function runGated(
  gate: CallGate,
  originals: Map<string, Handler>,
  scope: RunScope,
  name: string,
  args: Record<string, unknown>,
  extra: unknown,
): Promise<ToolResult> {
  const id = (extra as { _meta?: Record<string, unknown> } | undefined)?._meta?.['claudecode/toolUseId'];
  const seen = typeof id === 'string' ? scope.seen.get(id) : undefined;
  if (!seen) {
    // Claude ran the tool without the hook deciding it (the hook was not passed on, or permissions bypassed).
    noteBypass(`tool "${name}"`);
    return text(`Not run: tool ${name} ran without passing Interlock.`, true);
  }
  if (!seen.allowed) return text(seen.message ?? 'Not run.', true);
  // What the CLI hands the tool must be what the hook allowed (a repeated tool_use id could pair others).
  if (canonicalJson(args) !== canonicalJson(seen.input))
    return text('Not run: the arguments differ from the ones allowed.', true);
  const original = originals.get(name);
  if (!original) return text(`Not run: tool ${name} is not one of this agent's tools.`, true);
  const r = await gate.run(
    seen.call,
    (authorized, ledger) => {
      const interlock: InterlockExecution = { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt };
      return withExecution(interlock, () => original(authorized, { ...(extra as object), interlock }));
    },
    seen.check,
  );
  if (r.status === 'refused') return text(`Not run: ${r.message}`, true);
  if (r.status === 'failed') return text(`The tool failed: ${r.error}`, true);
  return r.edited
    ? { ...r.result, content: [{ type: 'text', text: gate.texts.edited(r.args) }, ...r.result.content] }
    : r.result;
}
