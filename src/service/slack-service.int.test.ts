/**
 * The service wires the Slack app from its config: the notifier posts through the app's channel, the
 * server answers Slack at /slack/interactions, and a click there decides — over a real HTTP port.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeSlack, type FakeSlack } from '../testing/fake-slack.ts';
import { testPolicy } from '../../test/support/server-fixture.ts';
import { defineConfig } from './config.ts';
import { startService, type Service } from './service.ts';
import { createReviewer } from '../server/index.ts';

const SECRET = 'service-signing-secret-1';

describe('the service with a Slack app configured', () => {
  let svc: Service;
  let fake: FakeSlack;
  const dir = mkdtempSync(join(tmpdir(), 'interlock-slack-svc-'));

  before(async () => {
    fake = await startFakeSlack();
    svc = await startService({
      config: defineConfig({
        policy: testPolicy,
        agents: () => [],
        slack: () => ({ botToken: 'xoxb-svc', signingSecret: SECRET, apiUrl: fake.url }),
        notifications: (_env, { slack }) => ({ channels: { sup: slack!.channel('C_SUP') }, default: ['sup'] }),
      }),
      databaseUrl: `sqlite:${join(dir, 'interlock.db')}`,
      port: 0,
      pollMs: 25,
      log: () => undefined,
    });
  });
  after(async () => {
    await svc.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('posts a paused request with buttons, and a signed click on them decides it', async () => {
    const { reviewer } = await createReviewer(svc.store, { name: 'Maria', roles: ['supervisor'] });
    await svc.interlock.reviewers.linkIdentity('slack', 'U_MARIA', reviewer.id, Date.now());
    const il = svc.interlock;
    const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', customerId: 'c1', amount: 900 } };
    const {
      requests: [req],
    } = await il.pause({
      thread: { id: 'svc-slack-1', agent: 'support', agentVersion: '1' },
      items: [{ call, verdict: await il.gate(call) }],
      proposer: 'agent:support',
    });
    for (let i = 0; i < 200 && fake.of('chat.postMessage').length === 0; i++) await sleep(25);
    const posted = fake.of('chat.postMessage')[0]!;
    assert.equal(posted.body.channel, 'C_SUP');
    const blocks = posted.body.blocks as Array<{
      type: string;
      elements?: Array<{ action_id: string; value?: string }>;
    }>;
    const value = blocks.find((b) => b.type === 'actions')!.elements![0]!.value!;

    const body = `payload=${encodeURIComponent(
      JSON.stringify({
        type: 'block_actions',
        user: { id: 'U_MARIA' },
        actions: [{ action_id: 'interlock_approve', value }],
      }),
    )}`;
    const ts = String(Math.floor(Date.now() / 1000));
    const res = await fetch(`${svc.url}/slack/interactions`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Slack-Request-Timestamp': ts,
        'X-Slack-Signature': `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`,
      },
      body,
    });
    assert.equal(res.status, 200);
    assert.equal((await il.getRequestOrThrow(req!.id)).status, 'authorized');
    assert.equal(fake.of('chat.postMessage')[0]!.token, 'xoxb-svc');
    assert.match(JSON.stringify(fake.of('chat.update').at(-1)?.body.blocks), /Approved\* by Maria/);
    // The delivery was audited like any channel's.
    assert.ok((await svc.store.listAudit({ requestId: req!.id })).some((e) => e.type === 'notified'));
  });
});
