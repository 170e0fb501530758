import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpUpstream } from '../service/index.ts';
import { UsageError } from './output.ts';

/** Connect a client to one upstream MCP server. */
export async function connect(name: string, u: McpUpstream): Promise<Client> {
  const client = new Client({ name: `interlock-gateway:${name}`, version: '1' });
  await client.connect(
    'url' in u
      ? new StreamableHTTPClientTransport(new URL(u.url))
      : new StdioClientTransport({
          command: u.command,
          args: u.args ?? [],
          ...(u.env ? { env: u.env } : {}),
          stderr: 'inherit',
        }),
  );
  return client;
}

/** `--upstream name=command arg…` or `--upstream name=https://…`. */
export function parseUpstream(spec: string): [string, McpUpstream] {
  const eq = spec.indexOf('=');
  if (eq < 1) throw new UsageError(`--upstream must be NAME=COMMAND or NAME=URL, not "${spec}"`);
  const name = spec.slice(0, eq);
  const rest = spec.slice(eq + 1).trim();
  if (/^https?:\/\//.test(rest)) return [name, { url: rest }];
  const [command, ...args] = rest.split(/\s+/);
  if (!command) throw new UsageError(`--upstream ${name}= needs a command or a URL`);
  return [name, { command, args }];
}
