// The files MCP server of the tests over stdio, as an upstream the gateway starts:
//   node mcp-files-server.ts CALLS_FILE
// Each call that reaches it is appended to CALLS_FILE (one JSON line), so tests see what was forwarded.
import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { filesServer } from './mcp-upstream.ts';

const [callsFile] = process.argv.slice(2) as [string];
const files = new Map([
  ['/notes.txt', 'hello'],
  ['/old.log', 'x'],
]);
const { server, calls } = filesServer(files);
const push = calls.push.bind(calls);
calls.push = (...items) => {
  for (const c of items) appendFileSync(callsFile, JSON.stringify(c) + '\n');
  return push(...items);
};
// A tool whose server dies in the middle of the call: the gateway must answer an error, not crash.
server.registerTool('die', { description: 'The server exits mid-call', inputSchema: {} }, () => process.exit(3));
await server.connect(new StdioServerTransport());
