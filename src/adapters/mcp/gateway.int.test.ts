import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { PolicyConfig, Reviewer } from '../../core/index.ts';
import { connectInMemory, filesServer } from '../../../test/support/mcp-upstream.ts';
import { createMcpGateway } from './gateway.ts';

const policy: PolicyConfig = {
  tools: {
    read_file: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
    delete_file: [{ id: 'delete', tier: 'approve', role: 'supervisor', timeout: '30m', reason: 'deletes a file' }],
    crash: [{ id: 'crash', tier: 'auto', reason: 'test' }],
  },
};
const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };
type Result = {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};
const textOf = (r: Result) => r.content.map((c) => c.text ?? '').join(' ');

for (const backend of allBackends()) {
  describe(`MCP gateway on ${backend.name}`, () => {
    let il: Interlock;
    let client: Client;
    let upstream: ReturnType<typeof filesServer>;
    const files = new Map<string, string>();

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy });
      upstream = filesServer(files);
      const upstreamClient = await connectInMemory(upstream.server, 'gateway');
      const { server } = await createMcpGateway({ interlock: il, upstreams: { files: upstreamClient }, holdMs: 300 });
      client = await connectInMemory(server, 'agent');
    });
    after(() => backend.destroy());

    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<Result>;
    const reached = (tool: string, path: string) =>
      upstream.calls.filter((c) => c.tool === tool && c.args.path === path).length;
    async function pending(path: string) {
      const r = await call('delete_file', { path });
      assert.equal(r.structuredContent?.status, 'awaiting_approval', textOf(r));
      return il.getRequestOrThrow(String(r.structuredContent.requestId));
    }

    it('lists the upstream tools with their schemas', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['crash', 'delete_file', 'read_file']);
      assert.deepEqual(Object.keys(tools.find((t) => t.name === 'read_file')!.inputSchema.properties ?? {}), ['path']);
    });

    it('auto: forwards every call, a repeat included', async () => {
      files.set('/a', 'hello');
      assert.equal(textOf(await call('read_file', { path: '/a' })), 'hello');
      assert.equal(textOf(await call('read_file', { path: '/a' })), 'hello');
      assert.equal(reached('read_file', '/a'), 2);
    });

    it('approve: held, answered as awaiting approval; the repeat after approval forwards once', async () => {
      files.set('/b', 'x');
      const req = await pending('/b');
      assert.equal(reached('delete_file', '/b'), 0);
      // Repeated before a decision: the same request, still waiting.
      assert.equal((await pending('/b')).id, req.id);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      assert.equal(textOf(await call('delete_file', { path: '/b' })), 'deleted /b');
      assert.equal(reached('delete_file', '/b'), 1);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'executed');
      // The outcome was answered: the same call again is a new action with a new request.
      const again = await pending('/b');
      assert.notEqual(again.id, req.id);
    });

    it('a decision during the hold is answered in the same call', async () => {
      files.set('/c', 'x');
      const decided = new Promise<void>((resolve) => {
        const off = il.on((e) => {
          if (e.type !== 'approval.created') return;
          off();
          void il
            .getRequestOrThrow(e.requestId)
            .then((r) =>
              il.decide(r.id, { type: 'approve', expectedVersion: r.version, actionHash: r.actionHash }, sam),
            )
            .then(() => resolve());
        });
      });
      const r = await call('delete_file', { path: '/c' });
      await decided;
      assert.equal(textOf(r), 'deleted /c');
    });

    it('reject: a tool error with the message; respond: the answer; neither reaches upstream', async () => {
      files.set('/d', 'x');
      files.set('/e', 'x');
      const d = await pending('/d');
      await il.decide(
        d.id,
        { type: 'reject', expectedVersion: d.version, actionHash: d.actionHash, message: 'keep it' },
        sam,
      );
      const rd = await call('delete_file', { path: '/d' });
      assert.equal(rd.isError, true);
      assert.match(textOf(rd), /keep it/);
      const e = await pending('/e');
      await il.decide(
        e.id,
        { type: 'respond', expectedVersion: e.version, actionHash: e.actionHash, message: 'Archived instead.' },
        sam,
      );
      const re = await call('delete_file', { path: '/e' });
      assert.equal(re.isError, false);
      assert.equal(textOf(re), 'Archived instead.');
      assert.equal(reached('delete_file', '/d') + reached('delete_file', '/e'), 0);
    });

    it("edit: the edited arguments, validated against the upstream tool's schema, are forwarded", async () => {
      files.set('/f', 'x');
      files.set('/f.bak', 'x');
      const req = await pending('/f');
      await assert.rejects(
        il.decide(
          req.id,
          { type: 'edit', expectedVersion: req.version, actionHash: req.actionHash, args: { path: 7 } },
          sam,
        ),
        { code: 'invalid_input' },
      );
      await il.decide(
        req.id,
        { type: 'edit', expectedVersion: req.version, actionHash: req.actionHash, args: { path: '/f.bak' } },
        sam,
      );
      const r = await call('delete_file', { path: '/f' });
      assert.match(textOf(r), /changed the arguments.*deleted \/f\.bak/);
      assert.equal(reached('delete_file', '/f'), 0);
      assert.ok(files.has('/f') && !files.has('/f.bak'));
    });

    it('an upstream error is a tool error, not a crash', async () => {
      const r = await call('crash', {});
      assert.equal(r.isError, true);
      assert.match(textOf(r), /upstream exploded/);
    });

    it("elicitation: a rule of the user's own role is confirmed by that user; declined rejects; another role is never asked", async () => {
      // A gateway whose delete rule names the client's own user, and a client that answers elicitation.
      const mine = createInterlock({
        store: await backend.create('mcp-elicit'),
        policy: {
          tools: {
            delete_file: [{ id: 'own', tier: 'approve', role: 'mcp-user', reason: 'your own file' }],
          },
        },
      });
      const up = filesServer(files);
      const { server } = await createMcpGateway({
        interlock: mine,
        upstreams: { files: await connectInMemory(up.server, 'gw2') },
        holdMs: 100,
      });
      let answer: { action: 'accept' | 'decline'; content?: { confirm: boolean } } = {
        action: 'accept',
        content: { confirm: true },
      };
      const asked: string[] = [];
      const [a, b] = InMemoryTransport.createLinkedPair();
      const user = new Client({ name: 'desktop', version: '1' }, { capabilities: { elicitation: {} } });
      user.setRequestHandler(ElicitRequestSchema, (req) => {
        asked.push(String(req.params.message));
        return answer;
      });
      await Promise.all([server.connect(a), user.connect(b)]);
      files.set('/g', 'x');
      files.set('/h', 'x');
      const ok = (await user.callTool({ name: 'delete_file', arguments: { path: '/g' } })) as Result;
      assert.equal(textOf(ok), 'deleted /g');
      assert.match(asked[0]!, /delete_file/);
      const audit = await mine.audit.listAudit({});
      assert.ok(
        audit.some((e) => e.type === 'approved' && e.actor === 'reviewer:mcp-user:local'),
        'recorded like any decision',
      );
      answer = { action: 'decline' };
      const no = (await user.callTool({ name: 'delete_file', arguments: { path: '/h' } })) as Result;
      assert.equal(no.isError, true);
      assert.match(textOf(no), /declined by the user/);
      assert.ok(files.has('/h'));
      // The supervisor rule of the first gateway is never put to the user, even by an eliciting client.
      const [c, d] = InMemoryTransport.createLinkedPair();
      const other = new Client({ name: 'desktop2', version: '1' }, { capabilities: { elicitation: {} } });
      let askedOther = 0;
      other.setRequestHandler(ElicitRequestSchema, () => {
        askedOther++;
        return { action: 'accept', content: { confirm: true } };
      });
      const first = await createMcpGateway({
        interlock: il,
        upstreams: { files: await connectInMemory(filesServer(files).server, 'gw3') },
        holdMs: 100,
      });
      await Promise.all([first.server.connect(c), other.connect(d)]);
      files.set('/i', 'x');
      const held = (await other.callTool({ name: 'delete_file', arguments: { path: '/i' } })) as Result;
      assert.equal(held.structuredContent?.status, 'awaiting_approval');
      assert.equal(askedOther, 0);
    });

    it("hints: tools without rules get a verdict from the upstream's annotations when asked to, else are blocked", async () => {
      const bare = createInterlock({ store: await backend.create('mcp-hints'), policy: { tools: {} } });
      const up = filesServer(files);
      const { server } = await createMcpGateway({
        interlock: bare,
        upstreams: { files: await connectInMemory(up.server, 'gw4') },
        hints: { readOnly: 'auto', other: 'approve', role: 'supervisor', trustAnnotationsOf: ['files'] },
        holdMs: 50,
      });
      const hc = await connectInMemory(server, 'agent4');
      files.set('/j', 'jay');
      const read = (await hc.callTool({ name: 'read_file', arguments: { path: '/j' } })) as Result;
      assert.equal(textOf(read), 'jay');
      const del = (await hc.callTool({ name: 'delete_file', arguments: { path: '/j' } })) as Result;
      assert.equal(del.structuredContent?.status, 'awaiting_approval');
      const req = await bare.getRequestOrThrow(String(del.structuredContent.requestId));
      assert.equal(req.role, 'supervisor');
      assert.match(req.reason, /destructiveHint/);
      // Without hints (the first gateway's policy has no rule for it): blocked.
      const noHints = createInterlock({ store: await backend.create('mcp-hints'), policy: { tools: {} } });
      const g2 = await createMcpGateway({
        interlock: noHints,
        upstreams: { files: await connectInMemory(filesServer(files).server, 'gw5') },
      });
      const blocked = (await (
        await connectInMemory(g2.server, 'agent5')
      ).callTool({ name: 'read_file', arguments: { path: '/j' } })) as Result;
      assert.equal(blocked.isError, true);
      assert.match(textOf(blocked), /no policy for tool/);
    });

    it('notify forwards and tells the role; escalate waits for two approvals of its role', async () => {
      const tiers = createInterlock({
        store: await backend.create('mcp-tiers'),
        policy: {
          tools: {
            read_file: [{ id: 'read-tell', tier: 'notify', role: 'auditor', reason: 'reads are reported' }],
            delete_file: [
              { id: 'two', tier: 'escalate', role: 'supervisor', approvals: 2, reason: 'needs two supervisors' },
            ],
          },
        },
      });
      const up = filesServer(files);
      const { server } = await createMcpGateway({
        interlock: tiers,
        upstreams: { files: await connectInMemory(up.server, 'gw6') },
        holdMs: 50,
      });
      const tc = await connectInMemory(server, 'agent6');
      files.set('/k', 'kay');
      assert.equal(textOf((await tc.callTool({ name: 'read_file', arguments: { path: '/k' } })) as Result), 'kay');
      const jobs = await tiers.jobs.listJobs({ kind: 'notify' });
      assert.ok(
        jobs.some((j) => j.payload.role === 'auditor' && j.payload.fyi === true),
        'the notify tier queued a notice for its role',
      );
      const first = (await tc.callTool({ name: 'delete_file', arguments: { path: '/k' } })) as Result;
      const req = await tiers.getRequestOrThrow(String(first.structuredContent!.requestId));
      assert.equal(req.approvalsRequired, 2);
      await tiers.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, sam);
      const oneOfTwo = (await tc.callTool({ name: 'delete_file', arguments: { path: '/k' } })) as Result;
      assert.equal(oneOfTwo.structuredContent?.status, 'awaiting_approval', 'one approval of two is not enough');
      assert.ok(files.has('/k'));
      const now = await tiers.getRequestOrThrow(req.id);
      await tiers.decide(
        req.id,
        { type: 'approve', expectedVersion: now.version, actionHash: now.actionHash },
        { id: 'sue', roles: ['supervisor'] },
      );
      assert.equal(
        textOf((await tc.callTool({ name: 'delete_file', arguments: { path: '/k' } })) as Result),
        'deleted /k',
      );
    });

    it('an unknown tool is a protocol error and changes nothing', async () => {
      const before = (await il.listRequests({})).items.length;
      await assert.rejects(call('format_disk', {}), /Unknown tool "format_disk"/);
      assert.equal((await il.listRequests({})).items.length, before);
    });
  });
}
