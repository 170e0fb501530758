import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RELAYED_CAPABILITIES } from '../adapters/mcp/wire.ts';
import type { McpUpstream } from '../service/index.ts';
import { UsageError } from './output.ts';

/**
 * Connect a client to one upstream MCP server. It declares sampling, elicitation and roots, which the
 * gateway relays to the MCP client that caused them.
 */
export async function connect(name: string, u: McpUpstream): Promise<Client> {
  const client = new Client(
    { name: `interlock-gateway:${name}`, version: '1' },
    { capabilities: RELAYED_CAPABILITIES },
  );
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

/**
 * `--upstream name=command arg…` or `--upstream name=https://…`. The command is split into words as a
 * POSIX shell would, without expanding anything: `"a b"` and `'a b'` are one word, and a backslash
 * escapes the next character (outside single quotes).
 */
export function parseUpstream(spec: string): [string, McpUpstream] {
  const eq = spec.indexOf('=');
  if (eq < 1) throw new UsageError(`--upstream must be NAME=COMMAND or NAME=URL, not "${spec}"`);
  const name = spec.slice(0, eq);
  const rest = spec.slice(eq + 1).trim();
  if (/^https?:\/\//.test(rest)) return [name, { url: rest }];
  const [command, ...args] = shellWords(rest, name);
  if (!command) throw new UsageError(`--upstream ${name}= needs a command or a URL`);
  return [name, { command, args }];
}

/** Split a command line into words: whitespace separates, quotes group, backslash escapes. */
export function shellWords(line: string, name = '?'): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (ch === '\\' && i + 1 < line.length && (quote !== '"' || '"\\$`'.includes(line[i + 1]!))) {
      word = (word ?? '') + line[++i];
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (quote) throw new UsageError(`--upstream ${name}= has an unclosed ${quote} quote: close it, or escape it with \\`);
  if (word !== undefined) words.push(word);
  return words;
}
