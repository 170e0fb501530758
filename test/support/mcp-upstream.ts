import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';

/** A small upstream MCP server over a map of files; `calls` records what reached it. */
export function filesServer(files: Map<string, string>) {
  const calls: Array<{ tool: string; args: Record<string, unknown> }> = [];
  const server = new McpServer({ name: 'files', version: '1' });
  server.registerTool(
    'read_file',
    { description: 'Read a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
    ({ path }) => {
      calls.push({ tool: 'read_file', args: { path } });
      const body = files.get(path);
      return body === undefined
        ? { content: [{ type: 'text', text: `no such file: ${path}` }], isError: true }
        : { content: [{ type: 'text', text: body }] };
    },
  );
  server.registerTool(
    'delete_file',
    { description: 'Delete a file', inputSchema: { path: z.string() }, annotations: { destructiveHint: true } },
    ({ path }) => {
      calls.push({ tool: 'delete_file', args: { path } });
      const had = files.delete(path);
      return { content: [{ type: 'text', text: had ? `deleted ${path}` : `no such file: ${path}` }] };
    },
  );
  server.registerTool('crash', { description: 'Fails', inputSchema: {} }, () => {
    calls.push({ tool: 'crash', args: {} });
    throw new Error('upstream exploded');
  });
  return { server, calls };
}

/** Connect an MCP server and a client over the SDK's in-memory transport pair. */
export async function connectInMemory(server: { connect(t: InMemoryTransport): Promise<void> }, name = 'test') {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}
