/**
 * An approver whose approved action failed is told, through every channel: the notice the failure's
 * transaction enqueued is rendered as "Your approval did not happen: <tool> failed: <error>" with
 * links to the card and the thread — a signed webhook event of its own type, a Slack message naming
 * the approvers, an e-mail to the role's recipients, and through the Slack app a direct message to
 * each approver linked to a Slack user (the channel only for those who are not). Local fakes of
 * the receivers, on both databases.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { ApprovalRequest, PolicyConfig, Reviewer } from '../core/index.ts';
import { createInterlock, type Interlock } from '../engine/interlock.ts';
import type { Store } from '../store/types.ts';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { startFakeHttpServer, type FakeHttpServer } from '../testing/fake-http.ts';
import { startFakeSlack, type FakeSlack } from '../testing/fake-slack.ts';
import { startFakeSmtpServer, type FakeSmtpServer } from '../testing/fake-smtp.ts';
import { emailChannel } from './email-channel.ts';
import { createNotifier } from './notifier.ts';
import { createSlackApp } from './slack-app.ts';
import { slackChannel } from './slack-channel.ts';
import type { SlackPayload } from './slack-message.ts';
import { webhookChannel, type WebhookBody } from './webhook-channel.ts';
import { verifyWebhookSignature } from './webhook-signature.ts';

const SECRET = 'approval-failed-secret-0123456789';
const BASE = 'https://interlock.example.com';

const policy: PolicyConfig = {
  tools: {
    issue_refund: [
      {
        id: 'big',
        tier: 'approve',
        role: 'supervisor',
        approvals: 2,
        reason: 'over $1,000',
        timeout: '1h',
        when: ({ args }) => Number(args.amount) > 1000,
      },
      { id: 'refund', tier: 'approve', role: 'supervisor', reason: 'every refund', timeout: '1h' },
    ],
  },
};

const dana: Reviewer = { id: 'dana', name: 'Dana Reviewer', roles: ['supervisor'] };
const sam: Reviewer = { id: 'sam', name: 'Sam <b>Supervisor</b>', roles: ['supervisor'] };

for (const backend of allBackends()) {
  describe(`telling approvers their approved action failed, on ${backend.name}`, () => {
    const clock = manualClock();
    let store: Store;
    let il: Interlock;
    let hook: FakeHttpServer;
    let slackHook: FakeHttpServer;
    let smtp: FakeSmtpServer;
    let fakeSlack: FakeSlack;
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({
        store,
        policy,
        now: clock.now,
        tools: {
          issue_refund: { schema: z.object({ orderId: z.string(), amount: z.number(), note: z.string().optional() }) },
        },
      });
      for (const r of [dana, sam])
        await il.reviewers.insertReviewer({
          ...r,
          name: r.name!,
          tokenHash: `h-${r.id}`,
          revoked: false,
          createdAt: 0,
        });
      hook = await startFakeHttpServer((req) =>
        verifyWebhookSignature(req.body, req.headers['x-interlock-signature'], SECRET)
          ? { status: 200, body: 'ok' }
          : { status: 401, body: 'bad signature' },
      );
      slackHook = await startFakeHttpServer();
      smtp = await startFakeSmtpServer();
      fakeSlack = await startFakeSlack();
    });
    after(async () => {
      await hook.close();
      await slackHook.close();
      await smtp.close();
      await fakeSlack.close();
      await backend.destroy();
    });

    /** A refund approved by `approvers` whose execution then fails with `error`. */
    async function failedRefund(args: Record<string, unknown>, approvers: Reviewer[], error: string) {
      const call = { tool: 'issue_refund', args };
      const { requests } = await il.pause({
        thread: { id: `af-${backend.name}-${++n}`, agent: 'a', agentVersion: '1' },
        items: [{ call, verdict: await il.gate(call), evidence: { customerMessage: 'SECRET-EVIDENCE' } }],
        proposer: 'agent:a',
      });
      let req: ApprovalRequest = requests[0]!;
      for (const r of approvers) {
        req = (
          await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, r)
        ).request;
      }
      clock.advance(1000);
      const out = await il.executeOnce(
        {
          key: `${req.id}:${req.actionHash}`,
          tool: req.tool,
          args: req.args,
          requestId: req.id,
          threadId: req.threadId,
        },
        () => Promise.reject(new Error(error)),
      );
      assert.equal(out.status, 'failed');
      return req;
    }

    it('webhook, Slack and e-mail: "Your approval did not happen", the masked error, the approvers, both links', async () => {
      const req = await failedRefund(
        { orderId: 'ORD-7', amount: 1800, note: '<!channel> pay now' },
        [dana, sam],
        'card declined for dana.reyes@example.com',
      );
      const [hooks, slacks, mails] = [hook.received.length, slackHook.received.length, smtp.mails.length];
      const notifier = createNotifier({
        interlock: il,
        baseUrl: BASE,
        routing: {
          channels: {
            hook: webhookChannel({ url: `${hook.url}/in`, secret: SECRET }),
            slack: slackChannel({ webhookUrl: `${slackHook.url}/services/T/B/X` }),
            mail: emailChannel({ host: smtp.host, port: smtp.port, from: 'il@example.com', to: ['sup@example.com'] }),
          },
          routes: { supervisor: ['hook', 'slack', 'mail'] },
        },
      });
      // The request's own notice is skipped (decided by now); the failure's is delivered.
      assert.deepEqual(await notifier.runOnce(), {
        claimed: 2,
        delivered: 1,
        retried: 0,
        dead: 0,
        skipped: 1,
        lost: 0,
      });

      const body = hook.received[hooks]!.json() as WebhookBody;
      assert.equal(body.type, 'approval_execution_failed');
      const m = body.message;
      assert.equal(m.kind, 'approval_execution_failed');
      if (m.kind !== 'approval_execution_failed') return;
      assert.equal(m.id, req.id);
      assert.equal(m.error, 'card declined for d***@example.com');
      assert.deepEqual(m.approvers, [
        { id: 'dana', name: 'Dana Reviewer' },
        { id: 'sam', name: 'Sam <b>Supervisor</b>' },
      ]);
      assert.equal(m.failedAt, clock.now());
      assert.equal(m.reviewUrl, `${BASE}/approvals/${req.id}`);
      assert.equal(m.threadUrl, `${BASE}/threads/${req.threadId}`);
      assert.equal(
        body.summary.headline,
        'Your approval did not happen: issue_refund failed: card declined for d***@example.com',
      );
      assert.doesNotMatch(hook.received[hooks]!.body.toString('utf8'), /SECRET-EVIDENCE|dana\.reyes/);

      const slack = slackHook.received[slacks]!.json() as SlackPayload;
      assert.equal(slack.text, 'Your approval did not happen: issue_refund failed: card declined for d***@example.com');
      const blocks = JSON.stringify(slack.blocks);
      assert.match(blocks, /Approved by\*\\nDana Reviewer and Sam &lt;b&gt;Supervisor&lt;\/b&gt;/);
      assert.match(blocks, /&lt;!channel&gt; pay now/);
      assert.doesNotMatch(blocks, /<!channel>|<b>/);
      assert.ok(
        blocks.includes(`"url":"${BASE}/approvals/${req.id}"`) &&
          blocks.includes(`"url":"${BASE}/threads/${req.threadId}"`),
      );

      const mail = (await smtp.waitFor(mails + 1))[mails]!;
      assert.deepEqual(mail.to, ['sup@example.com']);
      assert.equal(
        mail.subject,
        '[Interlock] Your approval did not happen: issue_refund failed: card declined for d***@example.com',
      );
      assert.match(mail.text, /Approved by: Dana Reviewer and Sam <b>Supervisor<\/b>/);
      assert.ok(
        mail.text.includes(`${BASE}/approvals/${req.id}`) && mail.text.includes(`${BASE}/threads/${req.threadId}`),
      );
      assert.match(mail.html, /Sam &lt;b&gt;Supervisor&lt;\/b&gt;/);

      const notified = (await store.listAudit({ requestId: req.id })).at(-1)!;
      assert.equal(notified.type, 'notified');
      assert.deepEqual(notified.payload, {
        channels: ['hook', 'slack', 'mail'],
        role: 'supervisor',
        approvalFailed: true,
        attempts: 1,
      });
    });

    it('the Slack app writes to each approver linked to a Slack user, and to the channel only for the others', async () => {
      await il.reviewers.linkIdentity('slack', 'U_DANA', 'dana', clock.now());
      const app = createSlackApp({
        interlock: il,
        botToken: 'xoxb-t',
        signingSecret: 'sign-secret-1',
        baseUrl: BASE,
        apiUrl: fakeSlack.url,
      });
      const notifier = createNotifier({
        interlock: il,
        baseUrl: BASE,
        routing: { channels: { slack: app.channel('C_SUP') }, default: ['slack'] },
      });

      const mine = await failedRefund({ orderId: 'ORD-8', amount: 80 }, [dana], 'shop offline');
      let posts = fakeSlack.of('chat.postMessage').length;
      assert.equal((await notifier.runOnce()).delivered, 1);
      const dm = fakeSlack.of('chat.postMessage').slice(posts);
      assert.deepEqual(
        dm.map((c) => c.body.channel),
        ['U_DANA'],
        'Dana alone, directly; not the channel',
      );
      assert.equal(dm[0]!.body.text, 'Your approval did not happen: issue_refund failed: shop offline');
      assert.ok(JSON.stringify(dm[0]!.body.blocks).includes(`${BASE}/approvals/${mine.id}`));

      await failedRefund({ orderId: 'ORD-9', amount: 1900 }, [dana, sam], 'bank timeout');
      posts = fakeSlack.of('chat.postMessage').length;
      assert.equal((await notifier.runOnce()).delivered, 1);
      const both = fakeSlack.of('chat.postMessage').slice(posts);
      assert.deepEqual(
        both.map((c) => c.body.channel),
        ['U_DANA', 'C_SUP'],
        'Sam has no Slack user: the channel, naming both',
      );
      assert.match(JSON.stringify(both[1]!.body.blocks), /Dana Reviewer and Sam &lt;b&gt;Supervisor/);
    });
  });
}
