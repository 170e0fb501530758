import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { ConfigError, type ErrorCode } from '../../core/index.ts';

/** A bearer token issued to one principal, kept as the SHA-256 (hex) of the token: the token itself is never stored. */
export interface McpHttpToken {
  /** Who the client holding this token is: its calls, threads and approvals are this principal's. */
  principal: string;
  /** Hex SHA-256 of the token (`interlock mcp token NAME` prints both). */
  sha256: string;
}

/**
 * Checks a bearer token and names its principal (`clientId`), or answers undefined for a token it does
 * not know. An `expiresAt` (seconds since the epoch) in the past is refused.
 */
export type McpTokenVerifier = (token: string) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

/** The Streamable HTTP endpoint's path. */
export const MCP_PATH = '/mcp';

/** RFC 9728's well-known prefix; the document of `/mcp` is served at this prefix + `/mcp` (and at the prefix alone). */
export const PROTECTED_RESOURCE_PREFIX = '/.well-known/oauth-protected-resource';

/** Whether a listen address is this machine only (nothing else on the network reaches it). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** The Host header values a loopback listener answers by default: the loopback names with its port. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** The browser origins of those hosts (a page served by the gateway's own address). */
export function loopbackOrigins(port: number): string[] {
  return loopbackHosts(port).map((h) => `http://${h}`);
}

/**
 * A token list checked by hash, in constant time against every entry (no early exit that tells how
 * close a guess came). Entries are validated here, before anything listens.
 */
export function tokenListVerifier(tokens: readonly McpHttpToken[]): McpTokenVerifier {
  const seen = new Set<string>();
  const entries = tokens.map((t, i) => {
    if (typeof t?.principal !== 'string' || t.principal.trim() === '')
      throw new ConfigError(`MCP token ${i + 1} needs a principal: { principal: 'alice', sha256: '…' }.`);
    if (typeof t.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(t.sha256))
      throw new ConfigError(
        `The MCP token of ${t.principal} needs sha256: the 64 hex digits \`interlock mcp token ${t.principal}\` prints.`,
      );
    const hash = t.sha256.toLowerCase();
    if (seen.has(hash))
      throw new ConfigError(`Two MCP tokens have the same sha256 (${hash.slice(0, 12)}…): one token, one principal.`);
    seen.add(hash);
    return { principal: t.principal.trim(), hash: Buffer.from(hash, 'hex') };
  });
  return (token) => {
    const hash = createHash('sha256').update(token, 'utf8').digest();
    let found: string | undefined;
    for (const e of entries) if (timingSafeEqual(e.hash, hash)) found ??= e.principal;
    return found === undefined ? undefined : { token, clientId: found, scopes: [] };
  };
}

/** Whether a Host header is one this listener answers to: an entry with a port matches exactly, one without any port. */
export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  if (!host) return false;
  const h = host.toLowerCase();
  let name: string;
  try {
    name = new URL(`http://${h}`).hostname;
  } catch {
    return false;
  }
  return allowed.some((a) => {
    const e = a.toLowerCase();
    return e === h || e === name;
  });
}

/** The bearer token of an Authorization header; `null` when the header is there but is not `Bearer <token>`. */
export function bearerToken(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  return m ? m[1]! : null;
}

/** RFC 9728: the metadata URL of a resource is the well-known prefix followed by the resource's path. */
export function protectedResourceMetadataUrl(resource: string): string {
  const u = new URL(resource);
  const path = u.pathname === '/' ? '' : u.pathname;
  return new URL(`${PROTECTED_RESOURCE_PREFIX}${path}`, u.origin).href;
}

/**
 * A refusal before the protocol layer, as the transport itself answers: a JSON-RPC error with no id.
 * `data.code` is Interlock's stable code; the message says what to do.
 */
export function refuse(
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  const rpc = status === 404 ? -32001 : -32000;
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: rpc, message, data: { code } }, id: null }));
}

/** The `WWW-Authenticate` challenge of a 401, pointing the client at the resource's metadata (MCP authorization). */
export function challenge(
  metadataUrl: string,
  error?: { code: 'invalid_token' | 'invalid_request'; why: string },
): string {
  const parts = [`resource_metadata="${metadataUrl}"`];
  if (error) parts.unshift(`error="${error.code}"`, `error_description="${error.why.replace(/"/g, "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * DNS-rebinding protection: the Host must be one this listener answers to, and a browser's Origin one
 * allowed (a page that rebinds its name to 127.0.0.1 sends its own name in both). Refuses with 403
 * and answers false; for an allowed cross-origin page, sets the CORS headers a browser client needs.
 */
export function checkHostAndOrigin(
  req: IncomingMessage,
  res: ServerResponse,
  hosts: readonly string[],
  origins: readonly string[],
): boolean {
  if (!hostAllowed(req.headers.host, hosts)) {
    refuse(
      res,
      403,
      'forbidden',
      `Host "${req.headers.host ?? ''}" is not one this gateway answers to (${hosts.join(', ')}); add it to mcp.http.allowedHosts if clients reach the gateway by that name.`,
    );
    return false;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (!origins.includes(origin)) {
    refuse(
      res,
      403,
      'forbidden',
      `Origin "${origin}" may not call this gateway; add it to mcp.http.allowedOrigins if that page is a client you trust.`,
    );
    return false;
  }
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('vary', 'Origin');
  res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader(
    'access-control-allow-headers',
    'authorization, content-type, accept, last-event-id, mcp-session-id, mcp-protocol-version',
  );
  res.setHeader('access-control-expose-headers', 'mcp-session-id, www-authenticate');
  return true;
}

/** Who made an authenticated request: the transport hands `req.auth` to the handlers as `extra.authInfo`. */
export type AuthedRequest = IncomingMessage & { auth?: AuthInfo };
