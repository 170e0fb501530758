import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { PolicyConfig, Reviewer } from '../../core/index.ts';
import { connectInMemory, filesServer } from '../../../test/support/mcp-upstream.ts';
import { createMcpGateway } from './gateway.ts';

const policy: PolicyConfig = {
  tools: { delete_file: [{ id: 'delete', tier: 'approve', role: 'supervisor', reason: 'deletes a file' }] },
};
const sam: Reviewer = { id: 'sam', roles: ['supervisor'] };
type Result = { content: Array<{ text?: string }>; _meta?: Record<string, unknown> };
const status = (r: Result) => (r._meta?.['interlock/status'] ?? {}) as { status?: string; requestId?: string };

for (const backend of allBackends()) {
  describe(`"approve and trust" through the MCP gateway is scoped, on ${backend.name}`, () => {
    let il: Interlock;
    before(async () => {
      il = createInterlock({ store: await backend.create(), policy });
    });
    after(() => backend.destroy());

    async function setup(trustTtlMs?: number) {
      const files = new Map<string, string>();
      const up = filesServer(files);
      const gw = await createMcpGateway({
        interlock: il,
        upstreams: { files: await connectInMemory(up.server, 'up') },
        holdMs: 0,
        ...(trustTtlMs === undefined ? {} : { trustTtlMs }),
      });
      const session = async () => {
        const c = await connectInMemory(gw.newServer(), 'agent');
        return (path: string) => c.callTool({ name: 'delete_file', arguments: { path } }) as Promise<Result>;
      };
      return { files, up, session };
    }

    async function trustFirst(call: (path: string) => Promise<Result>, path: string) {
      const r = await call(path);
      const req = await il.getRequestOrThrow(String(status(r).requestId));
      await il.decide(
        req.id,
        { type: 'approve', trust: true, expectedVersion: req.version, actionHash: req.actionHash },
        sam,
      );
      await call(path); // collects the approval
    }

    it('within the session the trust holds; another session of the same principal asks again', async () => {
      const { files, session } = await setup();
      for (const p of ['/a', '/b', '/c']) files.set(p, p);
      const first = await session();
      await trustFirst(first, '/a');
      const trusted = await first('/b');
      assert.equal(status(trusted).status, undefined, 'ran without a request');
      assert.equal(files.has('/b'), false);
      const other = await session();
      const asked = await other('/c');
      assert.equal(status(asked).status, 'awaiting_approval', 'a new session is not trusted');
      assert.equal(files.has('/c'), true);
    });

    it('the trust ends after trustTtlMs, in the same session', async () => {
      const { files, session } = await setup(50);
      for (const p of ['/d', '/e']) files.set(p, p);
      const s = await session();
      await trustFirst(s, '/d');
      await new Promise((r) => setTimeout(r, 80));
      assert.equal(status(await s('/e')).status, 'awaiting_approval');
      assert.equal(files.has('/e'), true);
    });
  });
}
