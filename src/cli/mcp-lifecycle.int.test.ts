// `interlock mcp` over stdio as a host runs it: it ends with its client, takes its upstream processes
// with it, and brings a crashed upstream back. And `--upstream` commands split as a shell would.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseUpstream } from './mcp-upstreams.ts';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const upstream = fileURLToPath(new URL('../../test/support/mcp-files-server.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'interlock-mcp-life-'));
const config = join(dir, 'interlock.config.ts');
writeFileSync(
  config,
  `export default {
  policy: { tools: {
    read_file: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
    die: [{ id: 'die', tier: 'auto', reason: 'test' }],
  } },
  agents: () => [],
  mcp: { upstreams: { files: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(upstream)}, ${JSON.stringify(join(dir, 'calls.jsonl'))}] } } },
};
`,
);
const env = { ...(process.env as Record<string, string>), DATABASE_URL: `sqlite:${join(dir, 'gw.db')}` };
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const children = (pid: number) =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number);
async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 20));
}

describe('interlock mcp over stdio: lifetime', () => {
  it('exits when its client closes stdin, and its upstream process ends with it', async () => {
    const gw = spawn(process.execPath, [main, 'mcp', '--config', config], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => gw.once('exit', resolve));
    let out = '';
    gw.stdout.on('data', (b: Buffer) => (out += b.toString()));
    gw.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
      }) + '\n',
    );
    await until(() => out.includes('"id":1'));
    const [upstreamPid] = children(gw.pid!);
    assert.ok(upstreamPid && alive(upstreamPid), 'the upstream runs as a child of the gateway');
    gw.stdin.end(); // the host quit
    assert.equal(await exited, 0);
    await until(() => !alive(upstreamPid));
  });

  it('a crashed stdio upstream is started again; the gateway answers its tools once it is back', async () => {
    const client = new Client({ name: 'host', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [main, 'mcp', '--config', config],
        env,
        stderr: 'pipe',
      }),
    );
    try {
      const died = await client.callTool({ name: 'die', arguments: {} });
      assert.equal(died.isError, true);
      // Until the upstream is back, calls are refused with the reconnecting error, never anything else.
      await until(async () => {
        try {
          const r = await client.callTool({ name: 'read_file', arguments: { path: '/notes.txt' } });
          assert.deepEqual(r.content, [{ type: 'text', text: 'hello' }]);
          return true;
        } catch (err) {
          assert.match(String(err), /Upstream "files" is reconnecting/);
          return false;
        }
      });
    } finally {
      await client.close();
    }
  });
});

describe('--upstream NAME=COMMAND ARGS', () => {
  it('splits the command as a shell would: quotes group words, a backslash escapes', () => {
    assert.deepEqual(parseUpstream(`fs=npx -y "@mcp/server fs" '/srv/my data' /a\\ b "say \\"hi\\""`), [
      'fs',
      { command: 'npx', args: ['-y', '@mcp/server fs', '/srv/my data', '/a b', 'say "hi"'] },
    ]);
    assert.deepEqual(parseUpstream(`x="/opt/My Tools/server" --flag=''`), [
      'x',
      { command: '/opt/My Tools/server', args: ['--flag='] },
    ]);
    assert.deepEqual(parseUpstream('web=https://example.com/mcp'), ['web', { url: 'https://example.com/mcp' }]);
    assert.throws(() => parseUpstream(`x=node "unclosed`), /unclosed " quote/);
    assert.throws(() => parseUpstream('=node'), /NAME=COMMAND/);
  });
});
