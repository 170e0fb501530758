/**
 * `interlock-approvals/mcp`: an approval gateway for MCP servers. Needs `@modelcontextprotocol/sdk` 1.x (an
 * optional peer dependency: install it in your project).
 * @example
 * import { createMcpGateway } from 'interlock-approvals/mcp';
 * const { server } = await createMcpGateway({ interlock, upstreams: { files: connectedClient } });
 * await server.connect(new StdioServerTransport());
 * // or over Streamable HTTP, one session per client, bearer tokens by principal:
 * const http = await serveMcpGatewayHttp(gateway, { port: 8931, tokens: [{ principal: 'alice', sha256 }] });
 */
export { createMcpGateway, type McpGatewayOptions } from './adapters/mcp/gateway.ts';
export {
  serveMcpGatewayHttp,
  type McpHttpOptions,
  type McpHttpServer,
  type McpHttpToken,
  type McpTokenVerifier,
} from './adapters/mcp/http.ts';
