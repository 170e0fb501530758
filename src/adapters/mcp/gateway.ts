import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../../core/index.ts';
import { createCallGate } from '../core/index.ts';
import { newGatewayServer } from './server.ts';
import type { GatewayContext, McpGatewayOptions } from './types.ts';
import { listRoutes, toolSchemas } from './upstreams.ts';

export type { McpGatewayOptions } from './types.ts';

/**
 * An MCP server that proxies upstream MCP servers' tools through Interlock. Every `tools/call` is gated
 * by the policy (tool names as the gateway lists them): `auto`/`notify` forward, `block` answers a tool
 * error with the rule's reason, `approve`/`escalate` open a durable request and hold the call briefly;
 * if nobody decided by then, the answer says it awaits approval, and the client's repeat of the same
 * call (same principal, tool and arguments, or the same `_meta.callId`) gets the decided outcome. An
 * approved forward is claimed in the ledger under the request's key, so it reaches upstream once.
 * Connect the returned server to any transport (stdio, Streamable HTTP, in-memory).
 */
export async function createMcpGateway(
  o: McpGatewayOptions,
): Promise<{ server: Server; tools: McpTool[]; newServer: () => Server }> {
  if (!o?.interlock) throw new ConfigError('createMcpGateway needs { interlock, upstreams }.');
  if (!o.upstreams || Object.keys(o.upstreams).length === 0)
    throw new ConfigError('createMcpGateway needs at least one upstream: { upstreams: { name: client } }.');
  const il = o.interlock;
  const name = o.name ?? 'mcp-gateway';
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const routes = await listRoutes(o.upstreams);
  const tools = [...routes.values()].map((r) => ({ ...r.tool, name: r.name }));
  il.registerTools(toolSchemas(routes));
  // The service beside the gateway (same database, another process) checks reviewers' edits against these.
  await il.publishToolSchemas(
    name,
    tools.map((t) => ({
      name: t.name,
      inputSchema: t.inputSchema,
      ...(t.description ? { description: t.description } : {}),
    })),
  );
  const ctx: GatewayContext = {
    o,
    il,
    name,
    holdMs: o.holdMs ?? 20_000,
    repeatWindowMs: o.repeatWindowMs ?? 10 * 60_000,
    userRole: o.userRole ?? 'mcp-user',
    gate,
    routes,
    answered: new Set<string>(),
  };
  const newServer = () => newGatewayServer(ctx, tools);
  return { server: newServer(), tools, newServer };
}
