// A plain JavaScript project puts Interlock's gateway in front of an MCP server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createInterlock, createSqliteStore } from 'interlock-approvals';
import { createMcpGateway } from 'interlock-approvals/mcp';

const store = createSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'consumer-mcp-')), 'il.db') });
await store.migrate();
const interlock = createInterlock({
  store,
  policy: { tools: { drop_table: [{ id: 'all', tier: 'approve', role: 'dba', reason: 'destroys data' }] } },
});
let ran = 0;
const upstream = new McpServer({ name: 'db', version: '1' });
upstream.registerTool('drop_table', { inputSchema: { table: z.string() } }, ({ table }) => {
  ran++;
  return { content: [{ type: 'text', text: `dropped ${table}` }] };
});
async function link(server, name) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}
const { server } = await createMcpGateway({ interlock, upstreams: { db: await link(upstream, 'gw') }, holdMs: 50 });
const agent = await link(server, 'agent');
const first = await agent.callTool({ name: 'drop_table', arguments: { table: 'tmp' } });
const req = await interlock.getRequestOrThrow(first.structuredContent.requestId);
await interlock.decide(
  req.id,
  { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
  { id: 'dana', roles: ['dba'] },
);
const done = await agent.callTool({ name: 'drop_table', arguments: { table: 'tmp' } });
console.log(JSON.stringify({ first: first.structuredContent.status, done: done.content[0].text, ran }));
await store.close();
