import { createHash, randomBytes } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { serveMcpGatewayHttp, type McpHttpOptions } from '../adapters/mcp/http.ts';
import { isLoopback } from '../adapters/mcp/http-guard.ts';
import type { InterlockConfig } from '../service/index.ts';
import { EXIT, UsageError, type Output } from './output.ts';
import type { Flags } from './shared.ts';

/** The `--http` flags of `interlock mcp` (parsed with the command's other flags). */
export const HTTP_FLAGS = {
  http: { type: 'string' },
  host: { type: 'string' },
  'session-idle-ms': { type: 'string' },
} as const;

/**
 * What `--http` serves with, from the flags and `mcp.http` in the configuration, checked before any
 * upstream starts. Undefined without `--http`.
 */
export function httpOptions(
  values: Flags,
  http: NonNullable<InterlockConfig['mcp']>['http'],
): Omit<McpHttpOptions, 'log'> | undefined {
  if (values.http === undefined) {
    if (values.host !== undefined || values['session-idle-ms'] !== undefined)
      throw new UsageError('--host and --session-idle-ms go with --http PORT');
    return undefined;
  }
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--http takes a port number (0 for any free port), not "${String(values.http)}"`);
  const host = (values.host as string | undefined) ?? '127.0.0.1';
  const tokens = http?.tokens ?? [];
  if (!isLoopback(host) && tokens.length === 0)
    throw new UsageError(
      `--host ${host} without tokens would make every client that reaches it one principal: issue tokens with \`interlock mcp token NAME\` (mcp.http.tokens in the config), or leave --host out (127.0.0.1)`,
    );
  if (!isLoopback(host) && !http?.allowedHosts?.length)
    throw new UsageError(
      `--host ${host}: list the Host names clients reach the gateway by in mcp.http.allowedHosts (e.g. "gateway.example.com:${port || 8931}"); every other Host is refused`,
    );
  const idle = values['session-idle-ms'] === undefined ? http?.sessionIdleMs : Number(values['session-idle-ms']);
  if (idle !== undefined && (!Number.isInteger(idle) || idle < 1))
    throw new UsageError('--session-idle-ms must be a whole number of milliseconds, at least 1');
  return {
    port,
    host,
    ...(tokens.length ? { tokens } : {}),
    ...(http?.allowedHosts ? { allowedHosts: http.allowedHosts } : {}),
    ...(http?.allowedOrigins ? { allowedOrigins: http.allowedOrigins } : {}),
    ...(idle === undefined ? {} : { sessionIdleMs: idle }),
  };
}

/** Serve the gateway over Streamable HTTP until `stop` settles, then close its sessions. */
export async function serveHttp(
  newServer: () => Server,
  options: Omit<McpHttpOptions, 'log'>,
  log: (line: string) => void,
  stop: Promise<void>,
): Promise<void> {
  const served = await serveMcpGatewayHttp({ newServer }, { ...options, log });
  log(`interlock mcp: listening on ${served.url}`);
  if (!options.tokens?.length)
    log(
      'interlock mcp: WARNING: no tokens (mcp.http.tokens), so every client on this machine is ONE principal: they share threads, requests and approvals. Issue one token per client with `interlock mcp token NAME`.',
    );
  else
    log(`interlock mcp: bearer tokens required (${new Set(options.tokens.map((t) => t.principal)).size} principals)`);
  await stop;
  await served.close();
}

/**
 * `interlock mcp token NAME`: a new bearer token for the MCP client of principal NAME. Prints the token
 * (once: give it to that client) and the line for `mcp.http.tokens`, which holds only its hash.
 */
export function mcpToken(argv: string[], io: Output): number {
  const [name, ...rest] = argv;
  if (!name || name.startsWith('-') || rest.length > 0)
    throw new UsageError('usage: interlock mcp token NAME   (NAME: the principal of the client that gets the token)');
  const token = `ilm_${randomBytes(32).toString('base64url')}`;
  const sha256 = createHash('sha256').update(token, 'utf8').digest('hex');
  io.out(`token: ${token}`);
  io.out('Give it to the MCP client of this principal ("Authorization: Bearer <token>"); it is not shown again.');
  io.out('Add this line to mcp.http.tokens in interlock.config.ts (only the hash is kept):');
  io.out(`  { principal: ${JSON.stringify(name)}, sha256: '${sha256}' },`);
  return EXIT.ok;
}
