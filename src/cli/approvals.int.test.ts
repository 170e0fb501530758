import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import type { Store } from '../store/types.ts';
import { PAYMENTS_CONFIG, runCli } from './test-helpers.ts';

for (const backend of allBackends()) {
  describe(`interlock approvals on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let env: Record<string, string>;
    let token: string;
    before(async () => {
      store = await backend.create();
      env = backend.env();
      il = createInterlock({ store, policy: { tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund needs a supervisor' }] } } });
      const add = await runCli(['reviewers', 'add', '--name', 'Maria Supervisor', '--roles', 'supervisor'], env);
      token = /token: (il_\S+)/.exec(add.out)![1]!;
    });
    after(() => backend.destroy());

    async function pending(amount = 900) {
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', amount } };
      const { requests } = await il.pause({ thread: { id: `cli-${Math.random()}`, agent: 'payments', agentVersion: '1.0.0' }, items: [{ call, verdict: await il.gate(call) }], proposer: 'agent:payments' });
      return requests[0]!;
    }

    it('edits a request from the CLI with the tools of the configuration (--config), checked by their schema', async () => {
      const req = await pending();
      const edit = await runCli(['approvals', 'decide', req.id, '--edit', '--args', '{"orderId":"ORD-1","amount":300}', '--token', token, '--config', PAYMENTS_CONFIG], env);
      assert.equal(edit.code, 0, edit.err);
      const after = await il.getRequestOrThrow(req.id);
      assert.equal(after.status, 'authorized');
      assert.deepEqual(after.args, { orderId: 'ORD-1', amount: 300 });
      assert.match(edit.out, /edited by Maria Supervisor/);

      // The schema is the config's: a negative amount is refused with the field named, and nothing changes.
      const other = await pending();
      const bad = await runCli(['approvals', 'decide', other.id, '--edit', '--args', '{"orderId":"ORD-1","amount":-5}', '--token', token], { ...env, INTERLOCK_CONFIG: PAYMENTS_CONFIG });
      assert.equal(bad.code, 3, bad.err);
      assert.match(bad.err, /amount/);
      assert.equal((await il.getRequestOrThrow(other.id)).status, 'pending');
    });
  });
}
