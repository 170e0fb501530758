// An MCP server behind Interlock's gateway. A small files server offers read_file and delete_file; an
// MCP client (any agent or editor) calls them through the gateway: reading runs at once, deleting waits
// for a supervisor, and after the approval the client's repeat of the call deletes the file — once.
// Run: node examples/adapters/mcp-gateway.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createInterlock, openStore } from '../../src/index.ts';
import { createMcpGateway } from '../../src/mcp.ts';

// The upstream: an ordinary MCP server, unaware of Interlock.
const files = new Map([
  ['/notes.txt', 'remember the milk'],
  ['/old.log', '…'],
]);
let deletes = 0;
const upstream = new McpServer({ name: 'files', version: '1' });
upstream.registerTool('read_file', { inputSchema: { path: z.string() } }, ({ path }) => ({
  content: [{ type: 'text', text: files.get(path) ?? `no such file: ${path}` }],
}));
upstream.registerTool('delete_file', { inputSchema: { path: z.string() } }, ({ path }) => {
  deletes++;
  return { content: [{ type: 'text', text: files.delete(path) ? `deleted ${path}` : `no such file: ${path}` }] };
});

/** Connect an MCP server and a client (in memory here; stdio or Streamable HTTP with `interlock mcp`). */
async function link(server: { connect: (t: InMemoryTransport) => Promise<void> }, name: string) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}

const store = await openStore(join(mkdtempSync(join(tmpdir(), 'interlock-mcp-')), 'interlock.db'));
const interlock = createInterlock({
  store,
  policy: {
    tools: {
      read_file: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
      delete_file: [{ id: 'delete', tier: 'approve', role: 'supervisor', reason: 'deletes a file' }],
    },
  },
});
const { server } = await createMcpGateway({
  interlock,
  upstreams: { files: await link(upstream, 'gateway') },
  holdMs: 500,
});
const agent = await link(server, 'agent');
const say = (r: unknown) => (r as { content: Array<{ text: string }> }).content.map((c) => c.text).join(' ');

console.log(`read_file: ${say(await agent.callTool({ name: 'read_file', arguments: { path: '/notes.txt' } }))}`);
const first = await agent.callTool({ name: 'delete_file', arguments: { path: '/old.log' } });
console.log(`delete_file: ${say(first)}`);
const { requestId } = first.structuredContent as { requestId: string };
const req = await interlock.getRequestOrThrow(requestId);
await interlock.decide(
  req.id,
  { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
  { id: 'sam', roles: ['supervisor'] },
);
console.log(`reviewer: approved ${req.id}`);
console.log(
  `delete_file again: ${say(await agent.callTool({ name: 'delete_file', arguments: { path: '/old.log' } }))}`,
);
console.log(`deletes that reached the files server: ${deletes}`);
await store.close();
if (deletes !== 1) process.exit(1);
