import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../../core/index.ts';
import { serveMcpGatewayHttp, type McpHttpOptions, type McpHttpServer } from './http.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ALICE = 'ilm_alice-token';
const BOB = 'ilm_bob-token';

/**
 * A stand-in gateway: `whoami` answers the principal and session the handler was handed, `ask` puts a
 * question to the client (elicitation, on the session's GET stream). `made`/`closed` count servers.
 */
function fakeGateway() {
  const counts = { made: 0, closed: 0 };
  const newServer = () => {
    counts.made++;
    const server = new Server({ name: 'fake', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      if (req.params.name === 'ask') {
        const r = await server.elicitInput({
          mode: 'form',
          message: 'Run it?',
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
        });
        return { content: [{ type: 'text', text: `${r.action}:${String(r.content?.confirm)}` }] };
      }
      return { content: [{ type: 'text', text: `${extra.authInfo?.clientId ?? '-'} ${extra.sessionId ?? '-'}` }] };
    });
    const close = server.onclose;
    server.onclose = () => {
      counts.closed++;
      close?.();
    };
    return server;
  };
  return { newServer, counts };
}

/** A raw HTTP request, so the Host header can be forged (fetch will not send one of ours). */
function raw(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: o.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...o.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (b: Buffer) => (body += b.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body === undefined ? undefined : JSON.stringify(o.body));
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const whoami = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
const code = (body: string) => (JSON.parse(body) as { error: { data: { code: string } } }).error.data.code;
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

async function connect(
  url: string,
  token?: string,
  elicit?: boolean,
): Promise<[Client, StreamableHTTPClientTransport]> {
  const client = new Client({ name: 'agent', version: '1' }, elicit ? { capabilities: { elicitation: {} } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  await client.connect(transport);
  return [client, transport];
}

describe('serveMcpGatewayHttp: options are checked before anything listens', () => {
  const gw = fakeGateway();
  const refused = (o: McpHttpOptions, re: RegExp) =>
    assert.rejects(serveMcpGatewayHttp(gw, o), (e: unknown) => e instanceof ConfigError && re.test(e.message));

  it('refuses a non-loopback address without tokens, and without allowedHosts', async () => {
    await refused({ port: 0, host: '0.0.0.0' }, /without tokens.*one principal/);
    await refused({ port: 0, host: '0.0.0.0', tokens: [{ principal: 'a', sha256: sha('x') }] }, /allowedHosts/);
  });

  it('refuses tokens that are not a principal and a sha256, and one hash for two principals', async () => {
    await refused({ port: 0, tokens: [{ principal: 'a', sha256: 'secret' }] }, /64 hex digits/);
    await refused({ port: 0, tokens: [{ principal: '', sha256: sha('x') }] }, /needs a principal/);
    await refused(
      {
        port: 0,
        tokens: [
          { principal: 'a', sha256: sha('x') },
          { principal: 'b', sha256: sha('x') },
        ],
      },
      /same sha256/,
    );
  });

  it('refuses authorization servers it has no way to check the tokens of', async () => {
    await refused({ port: 0, authorizationServers: ['https://as.example'] }, /need verifyToken/);
    assert.equal(gw.counts.made, 0);
  });
});

describe('serveMcpGatewayHttp without tokens (this machine only)', () => {
  const gw = fakeGateway();
  let http: McpHttpServer;
  before(async () => {
    http = await serveMcpGatewayHttp(gw, { port: 0 });
  });
  after(() => http.close());

  it('a session per client: its own session id, ended by DELETE with its protocol server', async () => {
    const [a, ta] = await connect(http.url);
    const [b, tb] = await connect(http.url);
    try {
      assert.ok(ta.sessionId && tb.sessionId && ta.sessionId !== tb.sessionId);
      assert.equal(textOf(await a.callTool({ name: 'whoami', arguments: {} })), `- ${ta.sessionId}`);
      assert.equal(textOf(await b.callTool({ name: 'whoami', arguments: {} })), `- ${tb.sessionId}`);
      assert.equal(http.sessions(), 2);
      const closed = gw.counts.closed;
      const sid = ta.sessionId;
      await ta.terminateSession();
      assert.equal(http.sessions(), 1);
      assert.equal(gw.counts.closed, closed + 1);
      const gone = await raw(http.url, { headers: { 'mcp-session-id': sid }, body: whoami });
      assert.equal(gone.status, 404);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a server-to-client request (elicitation) reaches the client on the session GET stream', async () => {
    const client = new Client({ name: 'agent', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
    // The server asks on the GET stream: wait for the client to have opened it.
    let streamOpen!: () => void;
    const opened = new Promise<void>((r) => (streamOpen = r));
    const transport = new StreamableHTTPClientTransport(new URL(http.url), {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (init?.method === 'GET' && res.ok) streamOpen();
        return res;
      },
    });
    await client.connect(transport);
    try {
      await opened;
      assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'accept:true');
    } finally {
      await client.close();
    }
  });

  it('tools/call before initialize is refused, and leaves no session behind', async () => {
    const made = gw.counts.made;
    const r = await raw(http.url, { body: whoami });
    assert.equal(r.status, 400);
    assert.match(r.body, /not initialized/i);
    const unknown = await raw(http.url, { headers: { 'mcp-session-id': 'no-such-session' }, body: whoami });
    assert.equal(unknown.status, 404);
    // One protocol server was made for the refused call, and closed: every open server is a session.
    assert.equal(gw.counts.made, made + 1);
    assert.equal(gw.counts.closed, gw.counts.made - http.sessions());
  });

  it('a forged Host (DNS rebinding) or a foreign Origin gets 403 with a JSON-RPC error; the loopback ones pass', async () => {
    const port = new URL(http.url).port;
    for (const host of [`evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, 'localhost']) {
      const r = await raw(http.url, { headers: { host }, body: initialize });
      assert.equal(r.status, 403, host);
      assert.equal(code(r.body), 'forbidden');
      assert.match(r.body, /allowedHosts/);
    }
    const foreign = await raw(http.url, { headers: { origin: 'http://evil.example' }, body: initialize });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /allowedOrigins/);
    for (const host of [`localhost:${port}`, `[::1]:${port}`]) {
      const ok = await raw(http.url, { headers: { host, origin: `http://${host}` }, body: initialize });
      assert.equal(ok.status, 200, `${host}: ${ok.body}`);
    }
    // No token configured: there is no protected-resource metadata to serve.
    assert.equal(
      (await raw(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`, { method: 'GET' })).status,
      404,
    );
  });

  it('a session with no open request is closed after sessionIdleMs, and its id is then unknown', async () => {
    const lines: string[] = [];
    const idle = fakeGateway();
    // Its own listener: a short idle time would close the other tests' sessions between their requests.
    const short = await serveMcpGatewayHttp(idle, { port: 0, sessionIdleMs: 50, log: (l) => lines.push(l) });
    try {
      const r = await raw(short.url, { body: initialize });
      const sid = String(r.headers['mcp-session-id']);
      assert.equal(r.status, 200);
      while (!lines.some((l) => l.includes(`session ${sid} closed after 50 ms idle`)))
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(short.sessions(), 0);
      assert.equal(idle.counts.closed, 1);
      const after = await raw(short.url, { headers: { 'mcp-session-id': sid }, body: whoami });
      assert.equal(after.status, 404);
    } finally {
      await short.close();
    }
  });
});

describe('serveMcpGatewayHttp with tokens', () => {
  const gw = fakeGateway();
  let http: McpHttpServer;
  before(async () => {
    http = await serveMcpGatewayHttp(gw, {
      port: 0,
      tokens: [
        { principal: 'alice', sha256: sha(ALICE) },
        { principal: 'bob', sha256: sha(BOB).toUpperCase() },
      ],
    });
  });
  after(() => http.close());

  it('no token: 401 with the metadata URL in WWW-Authenticate; the RFC 9728 document is served there', async () => {
    const r = await raw(http.url, { body: initialize });
    assert.equal(r.status, 401);
    assert.equal(code(r.body), 'unauthorized');
    const origin = new URL(http.url).origin;
    const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
    assert.equal(r.headers['www-authenticate'], `Bearer resource_metadata="${metadataUrl}"`);
    const doc = await (await fetch(metadataUrl)).json();
    assert.deepEqual(doc, {
      resource: http.url,
      bearer_methods_supported: ['header'],
      resource_name: 'Interlock MCP gateway',
    });
    const bad = await raw(http.url, { headers: { authorization: 'Bearer ilm_guess' }, body: initialize });
    assert.equal(bad.status, 401);
    assert.match(String(bad.headers['www-authenticate']), /^Bearer error="invalid_token", .*resource_metadata=/);
    const malformed = await raw(http.url, { headers: { authorization: `Basic ${ALICE}` }, body: initialize });
    assert.equal(malformed.status, 401);
    assert.equal(gw.counts.made, 0, 'nothing reached the protocol layer');
  });

  it("each token's principal reaches the handlers as authInfo.clientId; a session answers only its opener", async () => {
    const [a, ta] = await connect(http.url, ALICE);
    const [b] = await connect(http.url, BOB);
    try {
      assert.equal(textOf(await a.callTool({ name: 'whoami', arguments: {} })), `alice ${ta.sessionId}`);
      assert.match(textOf(await b.callTool({ name: 'whoami', arguments: {} })), /^bob /);
      const stolen = await raw(http.url, {
        headers: {
          authorization: `Bearer ${BOB}`,
          'mcp-session-id': ta.sessionId!,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: whoami,
      });
      assert.equal(stolen.status, 404);
      assert.equal(code(stolen.body), 'session_not_found');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('serveMcpGatewayHttp with verifyToken and an authorization server', () => {
  it('lists the authorization server and takes the principal verifyToken names; an expired token is refused', async () => {
    const http = await serveMcpGatewayHttp(fakeGateway(), {
      port: 0,
      authorizationServers: ['https://as.example'],
      resource: 'https://gateway.example/mcp',
      verifyToken: (token) =>
        token === 'carol'
          ? { token, clientId: 'carol', scopes: [] }
          : token === 'old'
            ? { token, clientId: 'old', scopes: [], expiresAt: 1 }
            : undefined,
    });
    try {
      const r = await raw(http.url, { body: initialize });
      assert.equal(
        r.headers['www-authenticate'],
        'Bearer resource_metadata="https://gateway.example/.well-known/oauth-protected-resource/mcp"',
      );
      const doc = (await (
        await fetch(new URL('/.well-known/oauth-protected-resource/mcp', http.url))
      ).json()) as Record<string, unknown>;
      assert.deepEqual(doc.authorization_servers, ['https://as.example']);
      assert.equal(doc.resource, 'https://gateway.example/mcp');
      const [c] = await connect(http.url, 'carol');
      assert.match(textOf(await c.callTool({ name: 'whoami', arguments: {} })), /^carol /);
      await c.close();
      const old = await raw(http.url, { headers: { authorization: 'Bearer old' }, body: initialize });
      assert.equal(old.status, 401);
      assert.match(old.body, /expired/);
    } finally {
      await http.close();
    }
  });
});
