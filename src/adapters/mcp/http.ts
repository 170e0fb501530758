import { createServer, type ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ConfigError } from '../../core/index.ts';
import {
  bearerToken,
  challenge,
  checkHostAndOrigin,
  isLoopback,
  loopbackHosts,
  loopbackOrigins,
  MCP_PATH,
  PROTECTED_RESOURCE_PREFIX,
  protectedResourceMetadataUrl,
  refuse,
  tokenListVerifier,
  type AuthedRequest,
  type McpHttpToken,
  type McpTokenVerifier,
} from './http-guard.ts';
import { SessionTable } from './http-sessions.ts';

export type { McpHttpToken, McpTokenVerifier } from './http-guard.ts';

/** Options of {@link serveMcpGatewayHttp}. */
export interface McpHttpOptions {
  /** TCP port (0: any free port; the handle's `url` says which). */
  port: number;
  /**
   * Address to listen on (default `127.0.0.1`). Anything but a loopback address needs `tokens` or
   * `verifyToken` (else every machine that reaches it would be one principal) and `allowedHosts`.
   */
  host?: string;
  /** Bearer tokens by principal, kept as hashes. With tokens (or `verifyToken`) every request must carry one. */
  tokens?: readonly McpHttpToken[];
  /** Check tokens some other way (an OAuth authorization server's introspection, say); tried after `tokens`. */
  verifyToken?: McpTokenVerifier;
  /** Authorization servers that issue tokens `verifyToken` accepts, listed in the protected-resource metadata. */
  authorizationServers?: readonly string[];
  /** This endpoint's public URL when clients reach it through a proxy (default `http://<Host>/mcp`). */
  resource?: string;
  /**
   * Host header values answered (`name:port`, or a bare name for any port). Default: the loopback names
   * with the listening port. Anything else gets 403: a web page that rebinds its DNS name to
   * 127.0.0.1 sends its own name as Host.
   */
  allowedHosts?: readonly string[];
  /** Origin header values answered, for browser clients (default: the loopback origins of the listening port). */
  allowedOrigins?: readonly string[];
  /** A session with no open request for this long is closed, with its protocol server (ms; default 30 minutes). */
  sessionIdleMs?: number;
  /** One line per start, session and refusal worth an operator's eye (default: nothing). */
  log?: (line: string) => void;
}

/** A running {@link serveMcpGatewayHttp}. */
export interface McpHttpServer {
  /** The endpoint's URL, e.g. `http://127.0.0.1:8931/mcp`. */
  url: string;
  /** Sessions open now. */
  sessions(): number;
  /** Close every session and stop listening. */
  close(): Promise<void>;
}

/**
 * Serve a gateway over Streamable HTTP at `/mcp`, with a protocol server per session. Requests are
 * checked in this order: Host and Origin (DNS rebinding; 403), the bearer token when tokens are
 * configured (401 with the RFC 9728 metadata URL), then the session: a request without
 * `Mcp-Session-Id` must be `initialize`, and a session answers only the principal that opened it.
 * The token's principal reaches the gateway as `extra.authInfo.clientId`.
 * @example
 * const gateway = await createMcpGateway({ interlock, upstreams });
 * const http = await serveMcpGatewayHttp(gateway, { port: 8931, tokens: [{ principal: 'alice', sha256 }] });
 */
export async function serveMcpGatewayHttp(
  gateway: { newServer: () => Server },
  options: McpHttpOptions,
): Promise<McpHttpServer> {
  const o = checkOptions(options);
  const log = options.log ?? (() => undefined);
  const sessions = new SessionTable(gateway.newServer, o.sessionIdleMs, log);
  let port = o.port;
  const hosts = () => options.allowedHosts ?? loopbackHosts(port);
  const origins = () => options.allowedOrigins ?? loopbackOrigins(port);

  const handle = async (req: AuthedRequest, res: ServerResponse) => {
    if (!checkHostAndOrigin(req, res, hosts(), origins())) return;
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const resource = o.resource ?? `http://${req.headers.host}${MCP_PATH}`;
    if (o.verify && (path === PROTECTED_RESOURCE_PREFIX || path.startsWith(`${PROTECTED_RESOURCE_PREFIX}/`)))
      return metadata(res, resource, o.authorizationServers);
    if (path !== MCP_PATH) return refuse(res, 404, 'not_found', `Nothing at ${path}: the MCP endpoint is ${MCP_PATH}.`);
    if (o.verify && !(await authenticate(req, res, o.verify, protectedResourceMetadataUrl(resource)))) return;
    await sessions.handle(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`interlock mcp: HTTP request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) refuse(res, 500, 'internal', 'The gateway failed on this request; see its log.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port, o.host, () => resolve());
  });
  const address = http.address();
  port = typeof address === 'object' && address ? address.port : o.port;
  const shown = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${shown}:${port}${MCP_PATH}`,
    sessions: () => sessions.size,
    async close() {
      await sessions.closeAll();
      // Open GET streams would hold `close` forever: end every connection.
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The options, checked before anything listens, with their defaults. */
function checkOptions(options: McpHttpOptions) {
  if (!options || !Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
    throw new ConfigError('serveMcpGatewayHttp needs { port }: a whole number from 0 to 65535.');
  const host = options.host ?? '127.0.0.1';
  const list = options.tokens && options.tokens.length > 0 ? tokenListVerifier(options.tokens) : undefined;
  const other = options.verifyToken;
  const verify: McpTokenVerifier | undefined =
    list && other ? async (t) => list(t) ?? (await other(t)) : (list ?? other);
  if (!verify && !isLoopback(host))
    throw new ConfigError(
      `Listening on ${host} without tokens would make every client that reaches it one principal, with nothing to tell them apart. Issue tokens (mcp.http.tokens; \`interlock mcp token NAME\`), or listen on 127.0.0.1.`,
    );
  if (!isLoopback(host) && !options.allowedHosts?.length)
    throw new ConfigError(
      `Listening on ${host}: list the Host names clients reach the gateway by in allowedHosts (e.g. "gateway.example.com:${options.port || 8931}"); every other Host is refused.`,
    );
  if (options.authorizationServers?.length && !other)
    throw new ConfigError(
      'authorizationServers need verifyToken: the gateway can only accept the tokens those servers issue through it.',
    );
  const sessionIdleMs = options.sessionIdleMs ?? 30 * 60_000;
  if (!Number.isInteger(sessionIdleMs) || sessionIdleMs < 1)
    throw new ConfigError('sessionIdleMs must be a whole number of milliseconds, at least 1.');
  if (options.resource !== undefined && !URL.canParse(options.resource))
    throw new ConfigError(`resource must be the endpoint's absolute URL, e.g. https://gateway.example.com/mcp.`);
  return {
    port: options.port,
    host,
    verify,
    sessionIdleMs,
    resource: options.resource,
    authorizationServers: options.authorizationServers,
  };
}

/** Check the bearer token; on success `req.auth` names the principal, else the 401 is answered here. */
async function authenticate(
  req: AuthedRequest,
  res: ServerResponse,
  verify: McpTokenVerifier,
  metadataUrl: string,
): Promise<boolean> {
  const token = bearerToken(req.headers.authorization);
  if (token === undefined) {
    refuse(
      res,
      401,
      'unauthorized',
      'This gateway needs a bearer token: send "Authorization: Bearer <token>" (an operator issues one with `interlock mcp token NAME`).',
      { 'www-authenticate': challenge(metadataUrl) },
    );
    return false;
  }
  const info = token === null ? undefined : await verify(token);
  const expired = info?.expiresAt !== undefined && info.expiresAt < Date.now() / 1000;
  if (!info || expired) {
    const why =
      token === null
        ? 'The Authorization header must be "Bearer <token>".'
        : expired
          ? 'This token has expired.'
          : 'This token is not valid here.';
    refuse(res, 401, 'unauthorized', `${why} Ask the gateway's operator for a token.`, {
      'www-authenticate': challenge(metadataUrl, { code: token === null ? 'invalid_request' : 'invalid_token', why }),
    });
    return false;
  }
  req.auth = info;
  return true;
}

/** RFC 9728 protected-resource metadata: what this resource is and how to present a token to it. */
function metadata(res: ServerResponse, resource: string, authorizationServers: readonly string[] | undefined): void {
  const doc = {
    resource,
    bearer_methods_supported: ['header'],
    resource_name: 'Interlock MCP gateway',
    ...(authorizationServers?.length ? { authorization_servers: [...authorizationServers] } : {}),
  };
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(doc));
}
