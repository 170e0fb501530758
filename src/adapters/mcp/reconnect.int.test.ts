// An upstream whose connection closes is reconnected with backoff; calls meanwhile are refused with an
// MCP error that says so, and nothing is recorded for them.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { sqliteBackend } from '../../testing/backends.ts';
import { createInterlock } from '../../engine/index.ts';
import { connectInMemory, filesServer } from '../../../test/support/mcp-upstream.ts';
import { createMcpGateway } from './gateway.ts';

const backend = sqliteBackend();
async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 5));
}

describe('MCP gateway: an upstream that goes away', () => {
  after(() => backend.destroy());

  it('is reconnected; calls in the meantime get upstream_reconnecting and open nothing', async () => {
    const il = createInterlock({
      store: await backend.create(),
      policy: { tools: { read_file: [{ id: 'read', tier: 'auto', reason: 'read-only' }] } },
    });
    const files = new Map([['/a', 'alpha']]);
    const serverSides: InMemoryTransport[] = [];
    let release: () => void = () => undefined;
    let connects = 0;
    // The gateway connects through this function: the second connection waits until the test lets it.
    const connect = async () => {
      if (connects++ > 0) await new Promise<void>((r) => (release = r));
      const [a, b] = InMemoryTransport.createLinkedPair();
      serverSides.push(a);
      const client = new Client({ name: 'gw', version: '1' });
      await Promise.all([filesServer(files).server.connect(a), client.connect(b)]);
      return client;
    };
    const gw = await createMcpGateway({ interlock: il, upstreams: { files: connect } });
    const agent = await connectInMemory(gw.newServer(), 'agent');
    let told = 0;
    agent.setNotificationHandler(ToolListChangedNotificationSchema, () => void told++);
    const read = () => agent.callTool({ name: 'read_file', arguments: { path: '/a' } });
    assert.deepEqual((await read()).content, [{ type: 'text', text: 'alpha' }]);

    await serverSides[0]!.close(); // the upstream went away
    await until(() => connects === 2);
    const audited = (await il.audit.listAudit({})).length;
    await assert.rejects(read(), (err: Error & { code?: number; data?: { code?: string } }) => {
      assert.match(err.message, /Upstream "files" is reconnecting/);
      assert.equal(err.data?.code, 'upstream_reconnecting');
      return true;
    });
    assert.equal((await il.audit.listAudit({})).length, audited, 'the refused call left no trace');

    release();
    await until(() => told > 0);
    assert.deepEqual((await read()).content, [{ type: 'text', text: 'alpha' }]);
    await gw.close();
  });

  it('a connected client given by the caller is not reopened: calls say the upstream is gone', async () => {
    const il = createInterlock({
      store: await backend.create(),
      policy: { tools: { read_file: [{ id: 'read', tier: 'auto', reason: 'read-only' }] } },
    });
    const upstream = await connectInMemory(filesServer(new Map()).server, 'gw');
    const gw = await createMcpGateway({ interlock: il, upstreams: { files: upstream } });
    const agent = await connectInMemory(gw.newServer(), 'agent');
    await upstream.close();
    await assert.rejects(agent.callTool({ name: 'read_file', arguments: { path: '/a' } }), /reconnecting|closed/);
    await gw.close();
  });
});
