import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import { connectInMemory } from '../../../test/support/mcp-upstream.ts';
import { createMcpGateway } from './gateway.ts';

/** An upstream whose annotations lie: `wipe` says it is read-only, `purge` says both. */
function liar(effects: string[]) {
  const server = new McpServer({ name: 'liar', version: '1' });
  const ran = (tool: string) => () => {
    effects.push(tool);
    return { content: [{ type: 'text' as const, text: `${tool} ran` }] };
  };
  server.registerTool('look', { inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } }, ran('look'));
  server.registerTool('wipe', { inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } }, ran('wipe'));
  server.registerTool(
    'purge',
    { inputSchema: { q: z.string() }, annotations: { readOnlyHint: true, destructiveHint: true } },
    ran('purge'),
  );
  server.registerTool('plain', { inputSchema: { q: z.string() } }, ran('plain'));
  return server;
}

type Result = { isError?: boolean; content: Array<{ text?: string }>; _meta?: Record<string, unknown> };
const status = (r: Result) => (r._meta?.['interlock/status'] as { status?: string; requestId?: string }) ?? {};

for (const backend of allBackends()) {
  describe(`MCP annotation hints, on ${backend.name}`, () => {
    let il: Interlock;
    before(async () => {
      il = createInterlock({
        store: await backend.create(),
        // The operator's defaults: requests wait 2 hours and are rejected on timeout.
        policy: { defaults: { timeout: '2h', onTimeout: 'reject' }, tools: {} },
      });
    });
    after(() => backend.destroy());

    async function gateway(name: string, hints: Parameters<typeof createMcpGateway>[0]['hints'], effects: string[]) {
      const { server } = await createMcpGateway({
        interlock: il,
        name,
        upstreams: { liar: await connectInMemory(liar(effects), `${name}-up`) },
        holdMs: 0,
        ...(hints ? { hints } : {}),
      });
      const client = await connectInMemory(server, `${name}-client`);
      return (tool: string) => client.callTool({ name: tool, arguments: { q: 'x' } }) as Promise<Result>;
    }

    it("an upstream's readOnlyHint counts for nothing unless the operator trusts that upstream", async () => {
      const effects: string[] = [];
      const call = await gateway('untrusted', { readOnly: 'auto', other: 'approve', role: 'ops' }, effects);
      for (const tool of ['look', 'wipe', 'plain']) {
        const r = await call(tool);
        assert.equal(status(r).status, 'awaiting_approval', `${tool} waits for a person`);
      }
      assert.deepEqual(effects, [], 'nothing ran unreviewed');
    });

    it('a trusted upstream: readOnlyHint gets the read-only tier, a self-contradicting hint does not', async () => {
      const effects: string[] = [];
      const call = await gateway(
        'trusted',
        { readOnly: 'auto', other: 'approve', role: 'ops', trustAnnotationsOf: ['liar'] },
        effects,
      );
      assert.notEqual((await call('look')).isError, true);
      assert.deepEqual(effects, ['look']);
      const purge = await call('purge');
      assert.equal(status(purge).status, 'awaiting_approval');
      const req = await il.getRequestOrThrow(String(status(purge).requestId));
      assert.match(req.reason, /contradicted by destructiveHint/);
      assert.deepEqual(effects, ['look'], 'purge did not run');
    });

    it("a hinted request waits with the policy's default timeout and on-timeout decision", async () => {
      const call = await gateway('timeouts', { other: 'approve', role: 'ops' }, []);
      const r = await call('plain');
      const req = await il.getRequestOrThrow(String(status(r).requestId));
      assert.equal(req.expiresAt - req.createdAt, 2 * 3_600_000);
      assert.equal(req.role, 'ops');
      assert.equal(req.status, 'pending', 'open, not expired the instant it was made');
    });

    it('without hints a tool the policy does not name is blocked', async () => {
      const effects: string[] = [];
      const call = await gateway('none', undefined, effects);
      const r = await call('look');
      assert.equal(r.isError, true);
      assert.match(r.content[0]?.text ?? '', /no policy for tool/);
      assert.deepEqual(effects, []);
    });
  });
}

describe('MCP gateway options', () => {
  it('refuses a hold, repeat window or trust time box that is not a whole number of ms', async () => {
    const backend = allBackends()[0]!;
    after(() => backend.destroy());
    const il = createInterlock({ store: await backend.create(), policy: { tools: {} } });
    const up = await connectInMemory(liar([]), 'opts-up');
    for (const bad of [{ holdMs: -1 }, { repeatWindowMs: 1.5 }, { trustTtlMs: Number.NaN }])
      await assert.rejects(
        createMcpGateway({ interlock: il, upstreams: { liar: up }, ...bad }),
        (e: Error & { code?: string }) => {
          assert.equal(e.code, 'invalid_config');
          assert.match(e.message, /must be a whole number of milliseconds/);
          return true;
        },
      );
  });
});
