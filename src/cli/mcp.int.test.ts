import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const upstream = fileURLToPath(new URL('../../test/support/mcp-files-server.ts', import.meta.url));
type Result = { content: Array<{ text?: string }>; isError?: boolean; structuredContent?: Record<string, unknown> };
const textOf = (r: Result) => r.content.map((c) => c.text ?? '').join(' ');

for (const backend of allBackends()) {
  describe(`interlock mcp (the command) on ${backend.name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-mcp-'));
    const calls = join(dir, 'calls.jsonl');
    const config = join(dir, 'interlock.config.ts');
    let il: Interlock;

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy: { tools: {} } });
      writeFileSync(
        config,
        `export default {
  policy: { tools: {
    read_file: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
    die: [{ id: 'die', tier: 'auto', reason: 'test' }],
    delete_file: [{ id: 'delete', tier: 'approve', role: 'supervisor', reason: 'deletes a file' }],
  } },
  agents: () => [],
  mcp: { upstreams: { files: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(upstream)}, ${JSON.stringify(calls)}] } }, holdMs: 200 },
};
`,
      );
    });
    after(() => backend.destroy());

    const env = () => ({ ...(process.env as Record<string, string>), ...backend.env() });
    const forwarded = () =>
      existsSync(calls)
        ? readFileSync(calls, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { tool: string })
        : [];

    it('over stdio: auto forwards; a gated call awaits approval; after the decision the repeat forwards once', async () => {
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [main, 'mcp', '--config', config],
          env: env(),
          stderr: 'pipe',
        }),
      );
      try {
        assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), [
          'crash',
          'delete_file',
          'die',
          'read_file',
        ]);
        assert.equal(
          textOf((await client.callTool({ name: 'read_file', arguments: { path: '/notes.txt' } })) as Result),
          'hello',
        );
        const first = (await client.callTool({ name: 'delete_file', arguments: { path: '/old.log' } })) as Result;
        assert.equal(first.structuredContent?.status, 'awaiting_approval', textOf(first));
        const req = await il.getRequestOrThrow(String(first.structuredContent.requestId));
        await il.decide(
          req.id,
          { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
          { id: 'sam', roles: ['supervisor'] },
        );
        const done = (await client.callTool({ name: 'delete_file', arguments: { path: '/old.log' } })) as Result;
        assert.equal(textOf(done), 'deleted /old.log');
        assert.equal(forwarded().filter((c) => c.tool === 'delete_file').length, 1);
        // A tool the policy has no rule for is blocked (nothing without a verdict runs).
        const crash = (await client.callTool({ name: 'crash', arguments: {} })) as Result;
        assert.equal(crash.isError, true);
        assert.equal(forwarded().filter((c) => c.tool === 'crash').length, 0);
      } finally {
        await client.close();
      }
    });

    /** A real MCP client connected to `interlock mcp` over stdio. */
    async function connectGateway(): Promise<Client> {
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [main, 'mcp', '--config', config],
          env: env(),
          stderr: 'pipe',
        }),
      );
      return client;
    }

    it('killed after the approval: a restarted gateway forwards the repeat once, and only once', async () => {
      const a = await connectGateway();
      const first = (await a.callTool({ name: 'delete_file', arguments: { path: '/notes.txt' } })) as Result;
      const req = await il.getRequestOrThrow(String(first.structuredContent!.requestId));
      await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        { id: 'sam', roles: ['supervisor'] },
      );
      await a.close(); // the gateway process ends with its client
      const b = await connectGateway();
      try {
        const done = (await b.callTool({ name: 'delete_file', arguments: { path: '/notes.txt' } })) as Result;
        assert.equal(textOf(done), 'deleted /notes.txt');
        const again = (await b.callTool({ name: 'delete_file', arguments: { path: '/notes.txt' } })) as Result;
        assert.equal(again.structuredContent?.status, 'awaiting_approval', 'a repeat after the answer is a new action');
        assert.equal(
          forwarded().filter((c) => c.tool === 'delete_file' && JSON.stringify(c).includes('notes')).length,
          1,
        );
      } finally {
        await b.close();
      }
    });

    it('malformed requests get protocol errors and change nothing; an upstream that dies mid-call is a tool error', async () => {
      const client = await connectGateway();
      try {
        const before = (await il.listRequests({})).items.length;
        await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
        await assert.rejects(
          client.request({ method: 'tools/call', params: { arguments: { path: '/x' } } }, CallToolResultSchema),
          /Invalid|invalid|name/,
        );
        assert.equal((await il.listRequests({})).items.length, before);
        const died = (await client.callTool({ name: 'die', arguments: {} })) as Result;
        assert.equal(died.isError, true);
        assert.match(textOf(died), /upstream tool failed/i);
        // The gateway itself lives on and still answers.
        assert.ok((await client.listTools()).tools.length > 0);
      } finally {
        await client.close();
      }
    });

    it('over Streamable HTTP (--http): the same gateway answers', async () => {
      const child = spawn(process.execPath, [main, 'mcp', '--config', config, '--http', '0'], {
        env: env(),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let err = '';
          child.stderr.on('data', (b: Buffer) => {
            err += b.toString();
            const m = /listening on (\S+)/.exec(err);
            if (m) resolve(m[1]!);
          });
          child.once('exit', (code) => reject(new Error(`interlock mcp exited ${code}: ${err}`)));
        });
        const client = new Client({ name: 'agent', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        assert.equal(
          textOf((await client.callTool({ name: 'read_file', arguments: { path: '/notes.txt' } })) as Result),
          'hello',
        );
        await client.close();
      } finally {
        child.kill('SIGTERM');
      }
    });
  });
}
