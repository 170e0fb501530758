import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { allBackends } from '../testing/backends.ts';
import { z } from 'zod';
import { createAgent } from '../agent/agent.ts';
import { tool } from '../agent/tool.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import type { Store } from '../store/types.ts';

const CLI = fileURLToPath(new URL('./main.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/interlock.mjs', import.meta.url));

function run(
  args: string[],
  env: Record<string, string>,
  node = process.execPath,
  script = CLI,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(node, [script, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 99) : 0;
      resolve({ code, out: stdout, err: stderr });
    });
  });
}

for (const backend of allBackends()) {
  describe(`interlock CLI on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let env: Record<string, string>;
    before(async () => {
      store = await backend.create();
      env = backend.env();
      il = createInterlock({
        store,
        policy: {
          tools: {
            issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'refunds need a supervisor' }],
          },
        },
      });
    });
    after(() => backend.destroy());

    async function pending() {
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', amount: 900 } };
      const { requests } = await il.pause({
        thread: { id: `cli-${Math.random()}`, agent: 'support', agentVersion: '1' },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:support',
      });
      return requests[0]!;
    }

    it('adds, lists and revokes reviewers; the token is printed once and only its hash is stored', async () => {
      const add = await run(['reviewers', 'add', '--name', 'Sam', '--roles', 'supervisor,finance'], env);
      assert.equal(add.code, 0, add.err);
      const token = /token: (il_\S+)/.exec(add.out)?.[1];
      assert.ok(token);
      const id = /reviewer (rev_\S+)/.exec(add.out)![1]!;
      const list = await run(['reviewers', 'list'], env);
      assert.match(list.out, /Sam\s+supervisor,finance\s+active/);
      assert.ok(!list.out.includes(token), 'list never shows tokens');
      const rows = await store.unsafeQuery('SELECT token_hash FROM il_reviewers WHERE id = $1', [id]);
      assert.notEqual(rows[0]?.token_hash, token);
      const linked = await run(['reviewers', 'link-slack', id, 'U024BE7LH'], env);
      assert.equal(linked.code, 0, linked.err);
      assert.match(linked.out, /Slack user U024BE7LH decides as Sam/);
      assert.equal((await store.getReviewerByIdentity('slack', 'U024BE7LH'))?.id, id);
      assert.equal((await run(['reviewers', 'link-slack', id, 'not-a-member-id'], env)).code, 2);
      assert.equal((await run(['reviewers', 'revoke', id], env)).code, 0);
      assert.equal((await run(['reviewers', 'link-slack', id, 'U024BE7LH'], env)).code, 3, 'a revoked reviewer');
      assert.equal((await run(['reviewers', 'revoke', id], env)).code, 3);
      assert.ok((await store.listAudit({})).some((e) => e.type === 'reviewer_revoked'));
    });

    it('lists, shows and decides approvals with exit codes scripts can rely on', async () => {
      const add = await run(['reviewers', 'add', '--name', 'Sue', '--roles', 'supervisor'], env);
      const token = /token: (il_\S+)/.exec(add.out)![1]!;
      const req = await pending();
      const list = await run(['approvals', 'list', '--role', 'supervisor'], env);
      assert.equal(list.code, 0);
      assert.match(list.out, new RegExp(req.id));
      const show = await run(['approvals', 'show', req.id], env);
      assert.match(show.out, /tool:\s+issue_refund/);
      assert.match(show.out, /"amount":900/);
      assert.equal((await run(['approvals', 'decide', req.id, '--approve'], env)).code, 2, 'no token: usage error');
      assert.equal((await run(['approvals', 'decide', req.id, '--approve', '--token', 'il_nope'], env)).code, 3);
      const ok = await run(['approvals', 'decide', req.id, '--approve', '--token', token], env);
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /authorized/);
      const again = await run(['approvals', 'decide', req.id, '--reject', '--token', token], env);
      assert.equal(again.code, 3);
      assert.match(again.err, /already_resolved/);
      const edit = await pending();
      const bad = await run(['approvals', 'decide', edit.id, '--edit', '--args', '{nope', '--token', token], env);
      assert.equal(bad.code, 2);
    });

    it('approvals show and threads show mark hidden characters and warn; --json keeps the exact bytes', async () => {
      // "\u202eEGASSEM" reads as "MESSAGE" in a terminal; "\u202e999-DRO" as "ORD-999".
      const agent = createAgent({
        name: 'support',
        version: '1',
        system: 'You refund.',
        interlock: il,
        model: scriptedModel([
          { toolCalls: [{ name: 'issue_refund', args: { orderId: '\u202e999-DRO', amount: 900 } }] },
        ]),
        tools: [
          tool({
            name: 'issue_refund',
            description: 'Refund',
            schema: z.object({ orderId: z.string(), amount: z.number() }),
            execute: async () => ({ ok: true }),
          }),
        ],
      });
      const threadId = `cli-hidden-${Math.random()}`;
      const r = await agent.invoke('\u202eEGASSEM', { threadId });
      const id = r.interrupts[0]!.id;

      const show = await run(['approvals', 'show', id], env);
      assert.equal(show.code, 0, show.err);
      assert.match(show.out, /"orderId":"⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩999-DRO"/);
      assert.ok(!show.out.includes('\u202e'), 'no raw override reaches the terminal');
      assert.match(show.err, /warning: .*hidden characters \(U\+202E RIGHT-TO-LEFT OVERRIDE\)/);

      const thread = await run(['threads', 'show', threadId], env);
      assert.equal(thread.code, 0, thread.err);
      assert.match(thread.out, /user: ⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩EGASSEM/);
      assert.match(thread.out, /-> issue_refund\(\{"orderId":"⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩999-DRO"/);
      assert.ok(!thread.out.includes('\u202e'));

      const list = await run(['approvals', 'list', '--thread', threadId], env);
      assert.equal(list.code, 0, list.err);
      assert.ok(!list.out.includes('\u202e'));

      const json = await run(['approvals', 'show', id, '--json'], env);
      assert.equal(
        (JSON.parse(json.out) as { request: { args: { orderId: string } } }).request.args.orderId,
        '\u202e999-DRO',
        'JSON keeps the exact bytes',
      );
      assert.match(
        json.err,
        /warning: this JSON keeps exactly the hidden characters \(U\+202E RIGHT-TO-LEFT OVERRIDE\)/,
      );
    });

    it('verifies the audit chain, and exits 1 naming the first broken event after tampering', async () => {
      const ok = await run(['audit', 'verify'], env);
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /^ok: \d+ events/);
      const events = await store.listAudit({ limit: 5 });
      await store.unsafeQuery(`UPDATE il_audit SET actor = 'reviewer:mallory' WHERE seq = $1`, [events[1]!.seq]);
      const broken = await run(['audit', 'verify'], env);
      assert.equal(broken.code, 1);
      assert.match(broken.out, new RegExp(`BROKEN at event #${events[1]!.seq}`));
    });

    it('prints the metrics roll-up, and refuses bad usage with exit 2', async () => {
      const m = await run(['metrics', '--json'], env);
      assert.equal(m.code, 0, m.err);
      const r = JSON.parse(m.out) as { tools: Array<{ tool: string; requests: number }> };
      assert.ok((r.tools.find((t) => t.tool === 'issue_refund')?.requests ?? 0) >= 2);
      assert.equal((await run(['metrics', '--window', 'soon'], env)).code, 2);
      assert.equal((await run(['nope'], env)).code, 2);
      assert.equal((await run(['reviewers', 'add', '--name', 'X'], env)).code, 2);
    });
  });
}

describe('bin/interlock.mjs', () => {
  it('runs the CLI, re-running itself on Node 24 from an older system Node', async () => {
    const r = await run(['--help'], {}, process.execPath, BIN);
    assert.equal(r.code, 0);
    assert.match(r.out, /usage: interlock <command>/);
    if (existsSync('/usr/bin/node')) {
      const old = await run(['--help'], {}, '/usr/bin/node', BIN);
      assert.equal(old.code, 0, old.err);
      assert.match(old.out, /usage: interlock <command>/);
    }
  });
});
