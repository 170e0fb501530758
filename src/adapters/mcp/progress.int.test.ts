// Progress under one token only increases: the gateway's own "waiting for a reviewer" ticks while a
// gated call is held, then the upstream's progress of the forwarded call, shifted past them.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { sqliteBackend } from '../../testing/backends.ts';
import { createInterlock } from '../../engine/index.ts';
import { proxyUpstream } from '../../../test/support/mcp-proxy-upstream.ts';
import { RELAYED_CAPABILITIES } from './wire.ts';
import { createMcpGateway } from './gateway.ts';

const backend = sqliteBackend();

describe('MCP gateway progress of a held, then forwarded, call', () => {
  after(() => backend.destroy());

  it('is one increasing sequence: the wait ticks, then the upstream’s own progress after them', async () => {
    const il = createInterlock({
      store: await backend.create(),
      policy: { tools: { work: [{ id: 'gated', tier: 'approve', role: 'ops', reason: 'test' }] } },
    });
    const up = proxyUpstream('one');
    const [ua, ub] = InMemoryTransport.createLinkedPair();
    const upstream = new Client({ name: 'gw', version: '1' }, { capabilities: RELAYED_CAPABILITIES });
    await Promise.all([up.server.connect(ua), upstream.connect(ub)]);
    const gw = await createMcpGateway({ interlock: il, upstreams: { one: upstream }, holdMs: 30_000 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'agent', version: '1' });
    await Promise.all([gw.newServer().connect(a), client.connect(b)]);

    const progress: number[] = [];
    const done = client.request(
      { method: 'tools/call', params: { name: 'work', arguments: {} } },
      CallToolResultSchema,
      {
        onprogress: (p) => void progress.push(p.progress),
        timeout: 60_000,
      },
    );
    let req;
    while (!(req = (await il.listRequests({ status: 'pending', limit: 5 })).items[0]) || progress.length < 2)
      await new Promise((r) => setTimeout(r, 100));
    await il.decide(
      req.id,
      { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
      {
        id: 'olga',
        roles: ['ops'],
      },
    );
    const r = await done;
    assert.equal(r.content[0]?.type === 'text' && r.content[0].text, 'worked');
    const ticks = progress.length - 2; // the upstream reports two steps of its own
    assert.ok(ticks >= 2, `the wait sent ticks first: ${JSON.stringify(progress)}`);
    for (let i = 1; i < progress.length; i++)
      assert.ok(progress[i]! > progress[i - 1]!, `progress only increases: ${JSON.stringify(progress)}`);
    await gw.close();
  });
});
