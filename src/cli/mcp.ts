import { createServer, type IncomingMessage } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createInterlock } from '../engine/index.ts';
import { openStore } from '../store/index.ts';
import { createMcpGateway } from '../adapters/mcp/gateway.ts';
import { loadConfig, type McpUpstream } from '../service/index.ts';
import { EXIT, UsageError, type Output } from './output.ts';
import { flags } from './shared.ts';

/** Connect a client to one upstream MCP server. */
async function connect(name: string, u: McpUpstream): Promise<Client> {
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
function parseUpstream(spec: string): [string, McpUpstream] {
  const eq = spec.indexOf('=');
  if (eq < 1) throw new UsageError(`--upstream must be NAME=COMMAND or NAME=URL, not "${spec}"`);
  const name = spec.slice(0, eq);
  const rest = spec.slice(eq + 1).trim();
  if (/^https?:\/\//.test(rest)) return [name, { url: rest }];
  const [command, ...args] = rest.split(/\s+/);
  if (!command) throw new UsageError(`--upstream ${name}= needs a command or a URL`);
  return [name, { command, args }];
}

/**
 * `interlock mcp`: an MCP server that serves the upstream servers' tools through Interlock's policy,
 * over stdio (default; stdout is the protocol, logs go to stderr) or Streamable HTTP (`--http PORT`).
 */
export async function mcp(argv: string[], io: Output): Promise<number> {
  const { values } = flags(argv, {
    config: { type: 'string' },
    upstream: { type: 'string', multiple: true },
    http: { type: 'string' },
    'hold-ms': { type: 'string' },
    principal: { type: 'string' },
  });
  const { config } = await loadConfig(values.config as string | undefined, io.env);
  const upstreams: Record<string, McpUpstream> = { ...(config.mcp?.upstreams ?? {}) };
  for (const spec of (values.upstream as string[] | undefined) ?? []) {
    const [name, u] = parseUpstream(spec);
    upstreams[name] = u;
  }
  if (Object.keys(upstreams).length === 0)
    throw new UsageError('interlock mcp needs an upstream: --upstream NAME=COMMAND, or mcp.upstreams in the config');
  const holdMs = values['hold-ms'] === undefined ? config.mcp?.holdMs : Number(values['hold-ms']);
  if (holdMs !== undefined && (!Number.isInteger(holdMs) || holdMs < 0))
    throw new UsageError('--hold-ms must be a whole number of milliseconds');
  const store = await openStore(io.env.DATABASE_URL);
  const interlock = createInterlock({ store, policy: config.policy });
  const clients = Object.fromEntries(
    await Promise.all(Object.entries(upstreams).map(async ([n, u]) => [n, await connect(n, u)] as const)),
  );
  const principal = values.principal as string | undefined;
  const gateway = await createMcpGateway({
    interlock,
    upstreams: clients,
    ...(holdMs === undefined ? {} : { holdMs }),
    ...(config.mcp?.hints ? { hints: config.mcp.hints } : {}),
    ...(principal ? { principal: () => principal } : {}),
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`interlock mcp: ${gateway.tools.length} tools from ${Object.keys(clients).join(', ')} on ${store.name}`);
  const stop = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  if (values.http !== undefined) {
    const port = Number(values.http);
    // Stateless Streamable HTTP: one protocol server and transport per request, over the same gateway.
    const http = createServer((req: IncomingMessage, res) => {
      if (req.url !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const server = gateway.newServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
    const address = http.address();
    log(
      `interlock mcp: listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/mcp`,
    );
    await stop;
    http.close();
  } else {
    const transport = new StdioServerTransport();
    await gateway.server.connect(transport);
    await Promise.race([stop, new Promise<void>((resolve) => (transport.onclose = resolve))]);
  }
  await Promise.all(Object.values(clients).map((c) => c.close().catch(() => undefined)));
  await store.close();
  return EXIT.ok;
}
