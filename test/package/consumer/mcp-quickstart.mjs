// The MCP quick start (docs/adapters/mcp.md) as an MCP host runs it: the JSON `interlock init --mcp`
// printed starts the gateway; an auto read runs at once; a gated write waits until a reviewer approves
// it with the CLI, then runs once. Usage: node mcp-quickstart.mjs '<the mcpServers entry as JSON>' <folder>
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [entryJson, folder] = process.argv.slice(2);
const entry = JSON.parse(entryJson);
const client = new Client({ name: 'quickstart-host', version: '1' });
await client.connect(
  new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: { ...process.env, ...entry.env },
    stderr: 'ignore',
  }),
);
const cli = (...args) =>
  execFileSync(entry.command, args, { cwd: folder, env: { ...process.env, ...entry.env }, encoding: 'utf8' });
const textOf = (r) => r.content.map((c) => c.text ?? '').join('');

const read = await client.callTool({ name: 'read_text_file', arguments: { path: join(folder, 'files', 'hello.txt') } });
// The write is held while the reviewer decides; the same call then answers with the upstream's result.
const writing = client.callTool(
  { name: 'write_file', arguments: { path: join(folder, 'files', 'new.txt'), content: 'approved' } },
  undefined,
  { timeout: 60_000 },
);
let id;
for (let i = 0; i < 200 && !id; i++) {
  id = JSON.parse(cli('approvals', 'list', '--json')).find((r) => r.tool === 'write_file')?.id;
  if (!id) await new Promise((r) => setTimeout(r, 100));
}
const decided = cli('approvals', 'decide', id, '--approve');
const wrote = await writing;
console.log(
  JSON.stringify({
    read: textOf(read).trim(),
    decided: /^approved by Sam: write_file/m.test(decided),
    wrote: wrote.isError ? `error: ${textOf(wrote)}` : 'ok',
    file: readFileSync(join(folder, 'files', 'new.txt'), 'utf8'),
  }),
);
await client.close();
