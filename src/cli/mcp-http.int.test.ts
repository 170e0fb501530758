import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { allBackends, sqliteBackend } from '../testing/backends.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { main as cli } from './main.ts';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const upstream = fileURLToPath(new URL('../../test/support/mcp-files-server.ts', import.meta.url));
type Result = { content: Array<{ text?: string }>; isError?: boolean; structuredContent?: Record<string, unknown> };
const textOf = (r: Result) => r.content.map((c) => c.text ?? '').join(' ');
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ALICE = 'ilm_alice-secret-token';
const BOB = 'ilm_bob-secret-token';

/** An interlock.config.ts for the files upstream; `http` is the `mcp.http` block's source text. */
function writeConfig(dir: string, http: string): { config: string; calls: string } {
  const calls = join(dir, 'calls.jsonl');
  const config = join(dir, 'interlock.config.ts');
  writeFileSync(
    config,
    `export default {
  policy: { tools: {
    read_file: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
    delete_file: [
      { id: 'own', tier: 'approve', role: 'mcp-user', reason: 'a scratch file of your own', when: ({ args }) => String(args.path).startsWith('/scratch/') },
      { id: 'delete', tier: 'approve', role: 'supervisor', reason: 'deletes a file' },
    ],
  } },
  agents: () => [],
  mcp: { upstreams: { files: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(upstream)}, ${JSON.stringify(calls)}] } }, holdMs: 200, http: ${http} },
};
`,
  );
  return { config, calls };
}

/** `interlock mcp --http 0` as a child process; resolves with its URL once it listens. */
async function startGateway(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [main, 'mcp', ...args, '--http', '0'], {
    env: { ...(process.env as Record<string, string>), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`interlock mcp exited ${code}: ${err}`)));
  });
  return { url, stderr: () => err, stop: () => child.kill('SIGTERM') };
}

/** A raw HTTP request: node's fetch will not send a forged Host header, node:http does. */
function raw(url: string, headers: Record<string, string>, body?: unknown, method = 'POST') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(
        url,
        {
          method,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        },
        (res) => {
          let text = '';
          res.on('data', (b: Buffer) => (text += b.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    },
  );
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** An MCP client with a bearer token; with `elicit`, it answers the gateway's questions and has its GET stream open. */
async function connect(url: string, token: string, elicit?: (message: string) => boolean) {
  const client = new Client({ name: 'agent', version: '1' }, elicit ? { capabilities: { elicitation: {} } } : {});
  let streamOpen!: () => void;
  const opened = new Promise<void>((r) => (streamOpen = r));
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, (req) => ({
      action: 'accept',
      content: { confirm: elicit(req.params.message) },
    }));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'GET' && res.ok) streamOpen();
      return res;
    },
  });
  await client.connect(transport);
  // The gateway asks on the session's GET stream: wait until the client has it open.
  if (elicit) await opened;
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<Result>;
  return { client, transport, call };
}

for (const backend of allBackends()) {
  describe(`interlock mcp --http with tokens on ${backend.name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-mcp-http-'));
    const { config, calls } = writeConfig(
      dir,
      `{ tokens: [{ principal: 'alice', sha256: '${sha(ALICE)}' }, { principal: 'bob', sha256: '${sha(BOB)}' }] }`,
    );
    let il: Interlock;
    let gw: Awaited<ReturnType<typeof startGateway>>;
    const forwarded = () =>
      existsSync(calls)
        ? readFileSync(calls, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { tool: string; args: { path?: string } })
        : [];

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy: { tools: {} } });
      gw = await startGateway(['--config', config], backend.env());
    });
    after(async () => {
      gw?.stop();
      await backend.destroy();
    });

    it("two clients with two tokens: B's same call opens its own request and never collects A's approval", async () => {
      const a = await connect(gw.url, ALICE);
      const b = await connect(gw.url, BOB);
      try {
        const first = await a.call('delete_file', { path: '/old.log' });
        assert.equal(first.structuredContent?.status, 'awaiting_approval', textOf(first));
        const req = await il.getRequestOrThrow(String(first.structuredContent.requestId));
        await il.decide(
          req.id,
          { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
          { id: 'sam', roles: ['supervisor'] },
        );
        const theirs = await b.call('delete_file', { path: '/old.log' });
        assert.equal(theirs.structuredContent?.status, 'awaiting_approval', textOf(theirs));
        assert.notEqual(theirs.structuredContent.requestId, req.id);
        const bobs = await il.getRequestOrThrow(String(theirs.structuredContent.requestId));
        assert.notEqual(bobs.threadId, req.threadId, 'each principal has threads of its own');
        assert.match(req.threadId, /alice/);
        assert.match(bobs.threadId, /bob/);
        assert.equal(forwarded().filter((c) => c.tool === 'delete_file').length, 0);
        assert.equal(textOf(await a.call('delete_file', { path: '/old.log' })), 'deleted /old.log');
        assert.equal(forwarded().filter((c) => c.tool === 'delete_file').length, 1);
      } finally {
        await a.client.close();
        await b.client.close();
      }
    });

    it("the MCP user's confirmation (elicitation) reaches the HTTP client over its session's stream", async () => {
      const asked: string[] = [];
      const a = await connect(gw.url, ALICE, (message) => {
        asked.push(message);
        return true;
      });
      try {
        const r = await a.call('delete_file', { path: '/scratch/tmp.txt' });
        assert.equal(textOf(r), 'no such file: /scratch/tmp.txt', 'confirmed by the user, forwarded once');
        assert.equal(asked.length, 1);
        assert.match(asked[0]!, /delete_file/);
        const decided = (await il.listRequests({ tool: 'delete_file' })).items.find(
          (q) => (q.args as { path?: string }).path === '/scratch/tmp.txt',
        );
        assert.equal(decided?.status, 'executed');
        assert.equal(forwarded().filter((c) => c.args.path === '/scratch/tmp.txt').length, 1);
      } finally {
        await a.client.close();
      }
    });

    it('no token: 401 with the protected-resource metadata URL; the document names the resource', async () => {
      const r = await raw(gw.url, {}, initialize);
      assert.equal(r.status, 401);
      const origin = new URL(gw.url).origin;
      const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
      assert.equal(r.headers['www-authenticate'], `Bearer resource_metadata="${metadataUrl}"`);
      assert.deepEqual(await (await fetch(metadataUrl)).json(), {
        resource: gw.url,
        bearer_methods_supported: ['header'],
        resource_name: 'Interlock MCP gateway',
      });
      const wrong = await raw(gw.url, { authorization: 'Bearer ilm_not-issued' }, initialize);
      assert.equal(wrong.status, 401);
      assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/);
    });

    it('a forged Host and a foreign Origin are refused with 403, token or not', async () => {
      const port = new URL(gw.url).port;
      const auth = { authorization: `Bearer ${ALICE}` };
      const host = await raw(gw.url, { ...auth, host: `attacker.example:${port}` }, initialize);
      assert.equal(host.status, 403);
      assert.match(host.body, /"jsonrpc":"2.0".*not one this gateway answers to/);
      const origin = await raw(gw.url, { ...auth, origin: 'https://attacker.example' }, initialize);
      assert.equal(origin.status, 403);
      assert.match(origin.body, /Origin \\"https:\/\/attacker.example\\" may not call this gateway/);
    });

    it('tools/call before initialize is refused; a session ends with DELETE and is unknown after', async () => {
      const auth = { authorization: `Bearer ${ALICE}` };
      const call = {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: '/notes.txt' } },
      };
      const early = await raw(gw.url, auth, call);
      assert.equal(early.status, 400);
      assert.match(early.body, /not initialized/i);
      const a = await connect(gw.url, ALICE);
      const sid = a.transport.sessionId!;
      assert.equal(textOf(await a.call('read_file', { path: '/notes.txt' })), 'hello');
      await a.transport.terminateSession();
      await a.client.close();
      const late = await raw(
        gw.url,
        { ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
        call,
      );
      assert.equal(late.status, 404);
      assert.match(gw.stderr(), new RegExp(`session ${sid} closed by its client`));
      assert.equal(forwarded().filter((c) => c.tool === 'read_file').length, 1, 'the early call reached nothing');
    });
  });
}

describe('interlock mcp --http without tokens, and `interlock mcp token`', () => {
  const backend = sqliteBackend();
  const dir = mkdtempSync(join(tmpdir(), 'interlock-mcp-http-'));
  const { config } = writeConfig(dir, '{}');
  before(() => backend.create());
  after(() => backend.destroy());

  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await cli(argv, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { ...process.env, ...backend.env() },
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('listens on 127.0.0.1 only and says loudly that every client is one principal', async () => {
    const gw = await startGateway(['--config', config], backend.env());
    try {
      assert.match(gw.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      await new Promise<void>((resolve) => {
        const check = () => (/WARNING: no tokens/.test(gw.stderr()) ? resolve() : setTimeout(check, 20));
        check();
      });
      assert.match(gw.stderr(), /every client on this machine is ONE principal/);
    } finally {
      gw.stop();
    }
  });

  it('refuses --host 0.0.0.0 without tokens, and --principal beside tokens, before anything starts', async () => {
    const open = await run(['mcp', '--config', config, '--http', '0', '--host', '0.0.0.0']);
    assert.equal(open.code, 2);
    assert.match(open.err, /--host 0\.0\.0\.0 without tokens .*interlock mcp token NAME/);
    const withTokens = writeConfig(
      mkdtempSync(join(tmpdir(), 'interlock-mcp-http-')),
      `{ tokens: [{ principal: 'a', sha256: '${sha('x')}' }] }`,
    );
    const both = await run(['mcp', '--config', withTokens.config, '--http', '0', '--principal', 'x']);
    assert.equal(both.code, 2);
    assert.match(both.err, /each token names its principal/);
    const noHosts = await run(['mcp', '--config', withTokens.config, '--http', '0', '--host', '0.0.0.0']);
    assert.equal(noHosts.code, 2);
    assert.match(noHosts.err, /allowedHosts/);
    assert.equal(existsSync(withTokens.calls), false, 'no upstream was started');
  });

  it('`interlock mcp token NAME` prints a token once and the config line with its hash', async () => {
    const r = await run(['mcp', 'token', 'alice']);
    assert.equal(r.code, 0);
    const token = /token: (\S+)/.exec(r.out)![1]!;
    assert.match(r.out, new RegExp(`\\{ principal: "alice", sha256: '${sha(token)}' \\}`));
    const again = await run(['mcp', 'token', 'alice']);
    assert.notEqual(/token: (\S+)/.exec(again.out)![1], token);
    assert.equal((await run(['mcp', 'token'])).code, 2);
  });
});
