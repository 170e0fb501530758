import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { handleCall } from './call-handler.ts';
import type { GatewayContext } from './types.ts';

/** A protocol server over this gateway (one per transport: stateless HTTP makes one per request). */
export function newGatewayServer(ctx: GatewayContext, tools: McpTool[]): Server {
  const server = new Server({ name: 'interlock-mcp-gateway', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => handleCall(ctx, server, request, extra));
  return server;
}
