import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { allBackends } from '../../testing/backends.ts';
import { serviceProcess, type ServiceProcess } from '../../testing/service-process.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import { createReviewer } from '../../server/index.ts';
import type { PolicyConfig } from '../../core/index.ts';
import { connectInMemory } from '../../../test/support/mcp-upstream.ts';
import { createMcpGateway } from './gateway.ts';

// The official filesystem server: every one of its tools declares an outputSchema, so the SDK's
// client validates every answer the gateway gives (pending, respond, not run, result).
const FS_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

const policy: PolicyConfig = {
  tools: {
    read_text_file: [{ id: 'read', tier: 'auto', reason: 'reads a file' }],
    write_file: [{ id: 'write', tier: 'approve', role: 'ops', timeout: '1h', reason: 'writes a file' }],
  },
};

type Result = {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};
const textOf = (r: Result) => r.content.map((c) => c.text ?? '').join(' ');
const statusOf = (r: Result) =>
  (r._meta?.['interlock/status'] ?? {}) as { status?: string; requestId?: string; expiresAt?: string };

for (const backend of allBackends()) {
  describe(`MCP gateway in front of the official filesystem server, beside interlock serve, on ${backend.name}`, () => {
    const root = mkdtempSync(join(tmpdir(), 'il-fs-root-'));
    const dir = mkdtempSync(join(tmpdir(), 'il-fs-cfg-'));
    let il: Interlock;
    let svc: ServiceProcess;
    let token: string;
    const closers: Array<() => Promise<unknown>> = [];

    /** A gateway process stand-in: its own engine on the shared database, its own upstream server. */
    async function gatewayProcess(holdMs: number) {
      const engine = createInterlock({ store: await backend.create('shared'), policy });
      const upstream = new Client({ name: 'gw-upstream', version: '1' });
      await upstream.connect(
        new StdioClientTransport({ command: process.execPath, args: [FS_SERVER, root], stderr: 'ignore' }),
      );
      const gw = await createMcpGateway({ interlock: engine, name: 'files-gw', upstreams: { fs: upstream }, holdMs });
      const client = await connectInMemory(gw.server, 'agent');
      await client.listTools(); // the SDK client validates structured output of tools it has listed
      closers.push(
        () => client.close(),
        () => upstream.close(),
      );
      const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
        client.callTool({ name, arguments: args }, undefined, signal ? { signal } : {}) as Promise<Result>;
      return { engine, call };
    }

    async function api(path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
      const res = await fetch(`${svc.url}/api/v1${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }
    async function decide(requestId: string, decision: Record<string, unknown>) {
      const req = await il.getRequestOrThrow(requestId);
      return api(`/approvals/${requestId}/decision`, {
        ...decision,
        expectedVersion: req.version,
        actionHash: req.actionHash,
      });
    }

    let gw: Awaited<ReturnType<typeof gatewayProcess>>;
    before(async () => {
      il = createInterlock({ store: await backend.create('shared'), policy });
      token = (await createReviewer(il.reviewers, { name: 'Olga', roles: ['ops'] })).token;
      const config = join(dir, 'interlock.config.mjs');
      writeFileSync(config, `export default { policy: ${JSON.stringify(policy)}, agents: () => [] };\n`);
      // The documented team set-up: the service (API, web UI, worker) on the gateway's database, with a
      // worker that gives up on unknown agents' threads quickly.
      svc = await serviceProcess({ config, env: { ...backend.env(), INTERLOCK_UNKNOWN_AGENT_MS: '300' } });
      await svc.start();
      gw = await gatewayProcess(300);
    });
    after(async () => {
      for (const close of closers.splice(0)) await close().catch(() => undefined);
      await svc?.stop();
      await backend.destroy();
      rmSync(root, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    });

    it('auto: a read runs and its structured result validates in the SDK client', async () => {
      writeFileSync(join(root, 'hello.txt'), 'hello');
      const r = await gw.call('read_text_file', { path: join(root, 'hello.txt') });
      assert.deepEqual(r.structuredContent, { content: 'hello' });
    });

    it('pending → approved from the HTTP API → the repeat gets the validated result; nothing waits on serve', async () => {
      const path = join(root, 'a.txt');
      const pending = await gw.call('write_file', { path, content: 'one' });
      // An error result without structured content: the validating client accepts it.
      assert.equal(pending.isError, true);
      assert.equal(statusOf(pending).status, 'awaiting_approval', textOf(pending));
      assert.match(textOf(pending), /awaits approval by an ops reviewer \(role "ops"/);
      const id = String(statusOf(pending).requestId);
      const other = await gw.call('write_file', { path: join(root, 'b.txt'), content: 'two' });
      assert.equal((await decide(id, { type: 'approve' })).status, 200);
      // Serve's worker sees resume jobs for a thread whose agent it does not have, for longer than
      // INTERLOCK_UNKNOWN_AGENT_MS: the gateway's threads are not its to fail or cancel.
      await sleep(1500);
      assert.equal((await il.getRequestOrThrow(id)).status, 'authorized', 'the approval is still there');
      assert.equal((await il.getRequestOrThrow(String(statusOf(other).requestId))).status, 'pending');
      assert.equal(existsSync(path), false, 'nothing ran before the repeat');
      const done = await gw.call('write_file', { path, content: 'one' });
      assert.deepEqual(done.structuredContent, { content: `Successfully wrote to ${path}` });
      assert.equal(readFileSync(path, 'utf8'), 'one');
      assert.equal((await il.getRequestOrThrow(id)).status, 'executed');
    });

    it("respond: the reviewer's answer reaches the validating client, and nothing runs", async () => {
      const path = join(root, 'respond.txt');
      const id = String(statusOf(await gw.call('write_file', { path, content: 'x' })).requestId);
      assert.equal((await decide(id, { type: 'respond', message: 'Use notes.txt instead.' })).status, 200);
      const r = await gw.call('write_file', { path, content: 'x' });
      assert.match(textOf(r), /Use notes\.txt instead\./);
      assert.equal(statusOf(r).status, 'answered_by_reviewer');
      assert.equal(existsSync(path), false);
    });

    it("edit from the HTTP API: the card has the upstream's schema, a bad edit is refused, a good one runs", async () => {
      const path = join(root, 'edit.txt');
      const id = String(statusOf(await gw.call('write_file', { path, content: 'draft' })).requestId);
      const card = await api(`/approvals/${id}`);
      const schema = card.json.argsSchema as { properties?: Record<string, unknown> } | null;
      assert.deepEqual(Object.keys(schema?.properties ?? {}).sort(), ['content', 'path']);
      const bad = await decide(id, { type: 'edit', args: { path, content: 5 } });
      assert.equal(bad.status, 400);
      assert.equal((bad.json.error as { code?: string }).code, 'invalid_input');
      assert.equal((await il.getRequestOrThrow(id)).status, 'pending', 'a refused edit changes nothing');
      assert.equal((await decide(id, { type: 'edit', args: { path, content: 'final' } })).status, 200);
      const r = await gw.call('write_file', { path, content: 'draft' });
      assert.match(textOf(r), /changed the arguments/);
      assert.equal(readFileSync(path, 'utf8'), 'final');
    });

    it('a cancelled call is not run when approved later; the repeat collects the approval once', async () => {
      const slow = await gatewayProcess(10_000);
      const path = join(root, 'cancel.txt');
      const ac = new AbortController();
      const held = slow.call('write_file', { path, content: 'c' }, ac.signal);
      let id: string | undefined;
      for (let i = 0; i < 100 && !id; i++, await sleep(50))
        id = (await il.listRequests({ tool: 'write_file', status: 'pending', limit: 50 })).items.find(
          (r) => r.args.path === path,
        )?.id;
      assert.ok(id, 'the held call opened a request');
      ac.abort();
      await assert.rejects(held, /abort/i);
      assert.equal((await decide(id, { type: 'approve' })).status, 200);
      await sleep(1200); // a hold that ignored the cancellation would see the decision within a second
      assert.equal(existsSync(path), false, 'the cancelled call did not run');
      const r = await slow.call('write_file', { path, content: 'c' });
      assert.deepEqual(r.structuredContent, { content: `Successfully wrote to ${path}` });
      assert.equal((await il.getRequestOrThrow(id)).status, 'executed');
    });

    it("two gateway processes: a decision made elsewhere ends the other's hold; a collected outcome is never replayed", async () => {
      const second = await gatewayProcess(10_000);
      const path = join(root, 'two.txt');
      const held = second.call('write_file', { path, content: '2' });
      let id: string | undefined;
      for (let i = 0; i < 100 && !id; i++, await sleep(50))
        id = (await il.listRequests({ tool: 'write_file', status: 'pending', limit: 50 })).items.find(
          (r) => r.args.path === path,
        )?.id;
      assert.ok(id);
      assert.equal((await decide(id, { type: 'approve' })).status, 200);
      const r = await held;
      assert.deepEqual(r.structuredContent, { content: `Successfully wrote to ${path}` }, 'not "awaits approval"');
      // The first gateway (another process) gets the same call: the outcome was delivered, so this is a
      // new write with a new request — not the old "Successfully wrote" replayed without running.
      const again = await gw.call('write_file', { path, content: '2' });
      assert.equal(statusOf(again).status, 'awaiting_approval');
      assert.notEqual(statusOf(again).requestId, id);
    });
  });
}
