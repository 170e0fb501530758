import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import type { Store } from '../store/types.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAYMENTS_CONFIG, runCli, runCliIntoClosedPipe } from '../../test/support/cli-helpers.ts';

for (const backend of allBackends()) {
  describe(`interlock approvals on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let env: Record<string, string>;
    let token: string;
    before(async () => {
      store = await backend.create();
      env = backend.env();
      il = createInterlock({
        store,
        policy: {
          tools: {
            issue_refund: [
              { id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund needs a supervisor' },
            ],
          },
        },
      });
      const add = await runCli(['reviewers', 'add', '--name', 'Maria Supervisor', '--roles', 'supervisor'], env);
      token = /token: (il_\S+)/.exec(add.out)![1]!;
    });
    after(() => backend.destroy());

    async function pending(amount = 900) {
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', amount } };
      const { requests } = await il.pause({
        thread: { id: `cli-${Math.random()}`, agent: 'payments', agentVersion: '1.0.0' },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:payments',
      });
      return requests[0]!;
    }

    it('approve, reject and respond need no configuration, only the database', async () => {
      const req = await pending();
      const env2 = { ...env, INTERLOCK_CONFIG: '/nonexistent/interlock.config.ts' };
      const r = await runCli(['approvals', 'decide', req.id, '--reject', '--message', 'no', '--token', token], env2);
      assert.equal(r.code, 0, r.err);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'rejected');
    });

    it('edits a request from the CLI with the tools of the configuration (--config), checked by their schema', async () => {
      const req = await pending();
      const edit = await runCli(
        [
          'approvals',
          'decide',
          req.id,
          '--edit',
          '--args',
          '{"orderId":"ORD-1","amount":300}',
          '--token',
          token,
          '--config',
          PAYMENTS_CONFIG,
        ],
        env,
      );
      assert.equal(edit.code, 0, edit.err);
      const after = await il.getRequestOrThrow(req.id);
      assert.equal(after.status, 'authorized');
      assert.deepEqual(after.args, { orderId: 'ORD-1', amount: 300 });
      assert.match(edit.out, /edited by Maria Supervisor: issue_refund \{"orderId":"ORD-1","amount":300\}/);

      // The schema is the config's: a negative amount is refused with the field named, and nothing changes.
      const other = await pending();
      const bad = await runCli(
        ['approvals', 'decide', other.id, '--edit', '--args', '{"orderId":"ORD-1","amount":-5}', '--token', token],
        { ...env, INTERLOCK_CONFIG: PAYMENTS_CONFIG },
      );
      assert.equal(bad.code, 3, bad.err);
      assert.match(bad.err, /amount/);
      assert.equal((await il.getRequestOrThrow(other.id)).status, 'pending');
    });

    it('decides only what the reviewer saw: --version and --hash from approvals show, a stale one refused', async () => {
      const req = await pending();
      const stale = await runCli(
        ['approvals', 'decide', req.id, '--approve', '--version', String(req.version + 1), '--hash', req.actionHash],
        { ...env, INTERLOCK_TOKEN: token },
      );
      assert.equal(stale.code, 3, stale.err);
      assert.match(stale.err, /stale_version/);
      const wrongHash = await runCli(
        ['approvals', 'decide', req.id, '--approve', '--version', String(req.version), '--hash', 'f'.repeat(64)],
        { ...env, INTERLOCK_TOKEN: token },
      );
      assert.match(wrongHash.err, /action_hash_mismatch/);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending', 'refusals change nothing');
      const ok = await runCli(
        ['approvals', 'decide', req.id, '--approve', '--version', String(req.version), '--hash', req.actionHash],
        { ...env, INTERLOCK_TOKEN: token },
      );
      assert.equal(ok.code, 0, ok.err);
      assert.doesNotMatch(ok.out, /decided on the current version/);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'authorized');
    });

    it('takes the token from INTERLOCK_TOKEN or --token-file, and warns when it is on the command line', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'il-token-')), 'token');
      writeFileSync(file, `${token}\n`, { mode: 0o600 });
      const a = await pending();
      const fromFile = await runCli(
        ['approvals', 'decide', a.id, '--reject', '--message', 'no', '--token-file', file],
        env,
      );
      assert.equal(fromFile.code, 0, fromFile.err);
      assert.doesNotMatch(fromFile.err, /visible to other users/);
      const b = await pending();
      const inline = await runCli(['approvals', 'decide', b.id, '--reject', '--token', token], env);
      assert.equal(inline.code, 0, inline.err);
      assert.match(inline.err, /visible to other users in `ps`/);
      const none = await runCli(['approvals', 'decide', b.id, '--reject'], env);
      assert.equal(none.code, 2);
      assert.match(none.err, /INTERLOCK_TOKEN/);
    });

    it('stops quietly when its output is piped into a reader that hangs up (| head -1)', async () => {
      // More than a pipe buffer (64 KiB) of output, so writes after the hang-up fail with EPIPE.
      for (let i = 0; i < 80; i++) await pending(100 + i);
      const r = await runCliIntoClosedPipe(
        ['approvals', 'list', '--status', 'pending', '--limit', '500', '--json'],
        env,
      );
      assert.doesNotMatch(r.err, /EPIPE|Error:|\n\s+at /, r.err);
      assert.ok([0, 141].includes(r.code), `exit ${r.code}`);
    });

    it('audit show names reviewers and processes instead of printing their ids', async () => {
      const req = await pending();
      assert.equal(
        (
          await runCli(['approvals', 'decide', req.id, '--reject', '--message', 'no'], {
            ...env,
            INTERLOCK_TOKEN: token,
          })
        ).code,
        0,
      );
      const shown = await runCli(['audit', 'show', '--request', req.id], env);
      assert.equal(shown.code, 0, shown.err);
      assert.match(shown.out, /rejected\s+Maria Supervisor/);
      assert.doesNotMatch(shown.out, /reviewer:rev_/);
      const json = await runCli(['audit', 'show', '--request', req.id, '--json'], env);
      assert.match(json.out, /"actor": "reviewer:rev_/, '--json keeps the recorded actor');
    });
  });
}
