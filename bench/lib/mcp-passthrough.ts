/**
 * The floor of an MCP proxy over stdio: an SDK server that lists the upstream's tools and forwards
 * every `tools/call` to it, with no policy, no store and no audit. What any stdio proxy costs (a
 * second process, each message parsed, validated and written twice) — the benchmark's floor for the
 * gateway, run as a child process like `interlock mcp`.
 *
 *   node bench/lib/mcp-passthrough.ts <upstream command> [args…]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node bench/lib/mcp-passthrough.ts <upstream command> [args…]');
  process.exit(2);
}
const upstream = new Client({ name: 'passthrough', version: '1' });
await upstream.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const { tools } = await upstream.listTools();
const server = new Server({ name: 'passthrough', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (req) =>
  upstream.callTool({ name: req.params.name, arguments: req.params.arguments ?? {} }),
);
// Gone with its client: the end of stdin (the SDK's transport does not watch for it).
const quit = () => void upstream.close().finally(() => process.exit(0));
process.stdin.once('end', quit);
await server.connect(new StdioServerTransport());
