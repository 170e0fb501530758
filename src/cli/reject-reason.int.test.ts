/**
 * `interlock approvals decide --reject` on a request whose rule requires a reason: refused without
 * one, with the engine's message saying how to give it; accepted with `--message`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { runCli } from '../../test/support/cli-helpers.ts';

for (const backend of allBackends()) {
  describe(`a required reject reason at the CLI on ${backend.name}`, () => {
    let il: Interlock;
    let env: Record<string, string>;
    let token: string;
    before(async () => {
      const store = await backend.create();
      env = backend.env();
      il = createInterlock({
        store,
        policy: {
          tools: {
            issue_refund: [
              {
                id: 'all',
                tier: 'approve',
                role: 'supervisor',
                reason: 'every refund needs a supervisor',
                rejectReasons: { required: true, choices: ['Duplicate request'] },
              },
            ],
          },
        },
      });
      const add = await runCli(['reviewers', 'add', '--name', 'Maria Supervisor', '--roles', 'supervisor'], env);
      token = /token: (il_\S+)/.exec(add.out)![1]!;
    });
    after(() => backend.destroy());

    it('refuses --reject without --message, saying how; takes it with one', async () => {
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', amount: 900 } };
      const { requests } = await il.pause({
        thread: { id: `cli-rr-${backend.name}`, agent: 'payments', agentVersion: '1.0.0' },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:payments',
      });
      const req = requests[0]!;
      const bare = await runCli(['approvals', 'decide', req.id, '--reject', '--token', token], env);
      assert.notEqual(bare.code, 0);
      assert.match(bare.err, /refused \(reason_required\): .*needs a reason.*--message.*"Duplicate request"/);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');
      const ok = await runCli(
        ['approvals', 'decide', req.id, '--reject', '--message', 'Duplicate request', '--token', token],
        env,
      );
      assert.equal(ok.code, 0, ok.err);
      const after = await il.getRequestOrThrow(req.id);
      assert.equal(after.status, 'rejected');
      assert.equal(after.resolution?.message, 'Duplicate request');
    });
  });
}
