import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createInterlock } from '../engine/index.ts';
import { openStore } from '../store/index.ts';
import { createMcpGateway } from '../adapters/mcp/gateway.ts';
import { loadConfig, type McpUpstream } from '../service/index.ts';
import { HTTP_FLAGS, httpOptions, mcpToken, serveHttp } from './mcp-http.ts';
import { connect, parseUpstream } from './mcp-upstreams.ts';
import { EXIT, UsageError, type Output } from './output.ts';
import { flags } from './shared.ts';

/**
 * `interlock mcp`: an MCP server that serves the upstream servers' tools through Interlock's policy,
 * over stdio (default; stdout is the protocol, logs go to stderr) or Streamable HTTP (`--http PORT`).
 */
export async function mcp(argv: string[], io: Output): Promise<number> {
  if (argv[0] === 'token') return mcpToken(argv.slice(1), io);
  const { values } = flags(argv, {
    config: { type: 'string' },
    upstream: { type: 'string', multiple: true },
    ...HTTP_FLAGS,
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
  const http = httpOptions(values, config.mcp?.http);
  if (http?.tokens && values.principal !== undefined)
    throw new UsageError(
      '--principal is for a gateway without tokens: with mcp.http.tokens, each token names its principal',
    );
  const store = await openStore(io.env.DATABASE_URL);
  const interlock = createInterlock({ store, policy: config.policy });
  // Connections the gateway opens itself, so it can open them again when an upstream dies.
  const clients = Object.fromEntries(Object.entries(upstreams).map(([n, u]) => [n, () => connect(n, u)] as const));
  const principal = values.principal as string | undefined;
  const gateway = await createMcpGateway({
    interlock,
    upstreams: clients,
    ...(holdMs === undefined ? {} : { holdMs }),
    ...(config.mcp?.hints ? { hints: config.mcp.hints } : {}),
    ...(config.mcp?.repeatWindowMs === undefined ? {} : { repeatWindowMs: config.mcp.repeatWindowMs }),
    ...(config.mcp?.trustTtlMs === undefined ? {} : { trustTtlMs: config.mcp.trustTtlMs }),
    ...(principal ? { principal: () => principal } : {}),
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`interlock mcp: ${gateway.tools.length} tools from ${Object.keys(clients).join(', ')} on ${store.name}`);
  const stop = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  if (http) {
    await serveHttp(gateway.newServer, http, log, stop);
  } else {
    const transport = new StdioServerTransport();
    await gateway.server.connect(transport);
    // The client went away when stdin ends: an MCP host that quits closes it, and the gateway (with
    // its upstream processes) must not outlive it.
    const gone = new Promise<void>((resolve) => {
      transport.onclose = resolve;
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    await Promise.race([stop, gone]);
    await transport.close().catch(() => undefined);
  }
  await gateway.close();
  await store.close();
  return EXIT.ok;
}
