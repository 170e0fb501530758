/**
 * `interlock approvals list` and `show` for people: look-alike letters (a Cyrillic М in "1 Мaple Dr")
 * are marked where the arguments show, and a multi-megabyte argument is cut, saying how long it is
 * and how to get it whole (`--json`, which keeps every byte).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI, runCli } from '../../test/support/cli-helpers.ts';

for (const backend of allBackends()) {
  describe(`interlock approvals show and list for people on ${backend.name}`, () => {
    let il: Interlock;
    let env: Record<string, string>;
    before(async () => {
      const store = await backend.create();
      env = backend.env();
      il = createInterlock({
        store,
        policy: {
          tools: { send_letter: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every letter is read' }] },
        },
      });
    });
    after(() => backend.destroy());

    it('marks look-alike letters, cuts a 3 MB argument with a note, and --json keeps it whole', async () => {
      const body = 'Dear customer, '.repeat(200_000); // 3,000,000 characters
      const call = { tool: 'send_letter', args: { address: '1 Мaple Dr', body } };
      const threadId = `cli-show-${Math.random()}`;
      const { requests } = await il.pause({
        thread: { id: threadId, agent: 'letters', agentVersion: '1' },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:letters',
      });
      const id = requests[0]!.id;

      const show = await runCli(['approvals', 'show', id], env);
      assert.equal(show.code, 0, show.err);
      assert.ok(show.out.length < 5_000, `show printed ${show.out.length} characters`);
      assert.match(show.out, /args: +\{"address":"1 Мaple Dr","body":"(Dear customer, )+/);
      assert.match(
        show.out,
        new RegExp(
          `\\(args\\.body is 3,000,000 characters, cut to its first 500: \`interlock approvals show ${id} --json\` prints it whole\\)`,
        ),
      );
      assert.match(
        show.out,
        /⚠ Look-alike letters in the arguments: “Мaple” mixes Latin with Cyrillic or Greek letters\./,
      );

      const list = await runCli(['approvals', 'list', '--thread', threadId], env);
      assert.equal(list.code, 0, list.err);
      assert.match(list.out, /\{"address":"1 Мaple Dr".*… ⚠ look-alike: “Мaple”/);

      // Run with room for the whole answer (the shared helper keeps Node's 1 MiB default).
      const json = await promisify(execFile)(process.execPath, [CLI, 'approvals', 'show', id, '--json'], {
        env: { ...process.env, ...env },
        maxBuffer: 64 * 1024 * 1024,
      });
      const whole = JSON.parse(json.stdout) as { request: { args: { body: string } } };
      assert.equal(whole.request.args.body, body, '--json keeps the whole value');
    });

    it('leaves Latin-only and Cyrillic-only words alone', async () => {
      const call = { tool: 'send_letter', args: { address: '1 Maple Dr, Москва', body: 'short' } };
      const { requests } = await il.pause({
        thread: { id: `cli-show-${Math.random()}`, agent: 'letters', agentVersion: '1' },
        items: [{ call, verdict: await il.gate(call) }],
        proposer: 'agent:letters',
      });
      const show = await runCli(['approvals', 'show', requests[0]!.id], env);
      assert.equal(show.code, 0, show.err);
      assert.doesNotMatch(show.out, /look-alike|cut to/i);
    });
  });
}
