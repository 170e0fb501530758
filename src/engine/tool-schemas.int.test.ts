import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from './interlock.ts';
import type { PolicyConfig, Reviewer } from '../core/index.ts';

const policy: PolicyConfig = {
  tools: { write_file: [{ id: 'write', tier: 'approve', role: 'ops', reason: 'writes a file' }] },
};
const writeFile = {
  name: 'write_file',
  description: 'Write a file',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
};
const ops: Reviewer = { id: 'olga', roles: ['ops'] };

for (const backend of allBackends()) {
  describe(`tool schemas published to the database, on ${backend.name}`, () => {
    // The gateway process runs the tool; the service (another process on the same database) is where
    // reviewers edit. Two engines over one store stand for the two processes.
    let gateway: Interlock;
    let service: Interlock;
    before(async () => {
      const store = await backend.create();
      gateway = createInterlock({ store, policy });
      service = createInterlock({ store, policy });
    });
    after(() => backend.destroy());

    async function pause(n: number) {
      const call = { tool: 'write_file', args: { path: `/tmp/${n}.txt`, content: 'hello' } };
      const { requests } = await gateway.pause({
        thread: { id: `ts-${backend.name}-${n}`, agent: 'gw', agentVersion: '1' },
        items: [{ call, verdict: await gateway.gate(call) }],
        proposer: 'agent:gw',
      });
      return requests[0]!;
    }

    it('before publishing, an edit is refused as unknown; nothing changes', async () => {
      const req = await pause(1);
      await assert.rejects(
        service.decide(
          req.id,
          {
            type: 'edit',
            args: { path: '/tmp/x', content: 'x' },
            expectedVersion: req.version,
            actionHash: req.actionHash,
          },
          ops,
        ),
        /no registered schema/,
      );
      assert.equal((await service.getRequestOrThrow(req.id)).status, 'pending');
    });

    it('after publishing, the other process shows the JSON Schema and checks edits against it', async () => {
      await gateway.publishToolSchemas('gw', [writeFile]);
      assert.deepEqual(await service.publishedInputSchema('write_file'), writeFile.inputSchema);
      const req = await pause(2);
      const guard = { expectedVersion: req.version, actionHash: req.actionHash };
      await assert.rejects(
        service.decide(req.id, { type: 'edit', args: { path: 7, content: 'x' }, ...guard }, ops),
        (e: Error & { code?: string; details?: { issues?: Array<{ path: string }> } }) => {
          assert.equal(e.code, 'invalid_input');
          assert.ok(
            e.details?.issues?.some((f) => f.path === 'args.path'),
            JSON.stringify(e.details),
          );
          return true;
        },
      );
      await assert.rejects(
        service.decide(req.id, { type: 'edit', args: { path: '/tmp/y', content: 'x', mode: 'rw' }, ...guard }, ops),
        /validation|unrecognized|mode/i,
      );
      const r = await service.decide(req.id, { type: 'edit', args: { path: '/tmp/y', content: 'x' }, ...guard }, ops);
      assert.equal(r.request.status, 'authorized');
      assert.deepEqual(r.request.args, { path: '/tmp/y', content: 'x' });
    });

    it('a relisting replaces the schema', async () => {
      await gateway.publishToolSchemas('gw', [
        { ...writeFile, inputSchema: { ...writeFile.inputSchema, required: ['path'] } },
      ]);
      assert.deepEqual((await service.publishedInputSchema('write_file'))?.required, ['path']);
      const req = await pause(3);
      const r = await service.decide(
        req.id,
        { type: 'edit', args: { path: '/tmp/z' }, expectedVersion: req.version, actionHash: req.actionHash },
        ops,
      );
      assert.deepEqual(r.request.args, { path: '/tmp/z' });
    });
  });
}
