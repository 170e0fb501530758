/**
 * `interlock-approvals/mcp`: an approval gateway for MCP servers. Needs `@modelcontextprotocol/sdk` 1.x (an
 * optional peer dependency: install it in your project).
 * @example
 * import { createMcpGateway } from 'interlock-approvals/mcp';
 * const { server } = await createMcpGateway({ interlock, upstreams: { files: connectedClient } });
 * await server.connect(new StdioServerTransport());
 */
export { createMcpGateway, type McpGatewayOptions } from './adapters/mcp/gateway.ts';
