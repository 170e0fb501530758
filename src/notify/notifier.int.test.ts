import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, type PolicyConfig, type Reviewer } from '../core/index.ts';
import { createInterlock, type Interlock } from '../engine/interlock.ts';
import type { Store } from '../store/types.ts';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { recordingChannel } from '../testing/fake-channel.ts';
import {
  startFakeHttpServer,
  type FakeHttpAnswer,
  type FakeHttpServer,
  type ReceivedHttpRequest,
} from '../testing/fake-http.ts';
import { startFakeSmtpServer, type FakeSmtpServer } from '../testing/fake-smtp.ts';
import type { Channel } from './channel.ts';
import { emailChannel } from './email-channel.ts';
import { createNotifier, type NotifierOptions } from './notifier.ts';
import { slackChannel } from './slack-channel.ts';
import type { SlackPayload } from './slack-message.ts';
import { webhookChannel, type WebhookBody } from './webhook-channel.ts';
import { verifyWebhookSignature } from './webhook-signature.ts';

const SECRET = 'notifier-test-secret-0123456789';
const BASE = 'https://interlock.example.com';

const policy: PolicyConfig = {
  tools: {
    issue_refund: [
      { id: 'small', tier: 'auto', reason: 'refund up to $500' },
      {
        id: 'large',
        tier: 'approve',
        role: 'supervisor',
        timeout: '30m',
        reason: 'refund over $500',
        when: ({ args }) => Number(args.amount) > 500,
      },
    ],
    cancel_subscription: [
      { id: 'always', tier: 'approve', role: 'retention_lead', timeout: '30m', reason: 'cancellations need review' },
    ],
    deploy: [{ id: 'deploy', tier: 'approve', role: 'sre', timeout: '30m', reason: 'deploys need an SRE' }],
    send_invoice: [{ id: 'tell', tier: 'notify', role: 'finance', reason: 'finance is told about invoices' }],
  },
};

const alice: Reviewer = { id: 'alice', roles: ['supervisor', 'retention_lead', 'sre'] };

/** The webhook receiver: answers 401 unless the signature verifies. */
const verifying = (req: ReceivedHttpRequest): FakeHttpAnswer =>
  verifyWebhookSignature(req.body, req.headers['x-interlock-signature'], SECRET)
    ? { status: 200, body: 'ok' }
    : { status: 401, body: 'bad signature' };

for (const backend of allBackends()) {
  describe(`notifier on ${backend.name}`, () => {
    const clock = manualClock();
    let store: Store;
    let il: Interlock;
    let hookServer: FakeHttpServer;
    let slackServer: FakeHttpServer;
    let smtp: FakeSmtpServer;
    let channels: Record<string, Channel>;
    let n = 0;

    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy, now: clock.now });
      hookServer = await startFakeHttpServer(verifying);
      slackServer = await startFakeHttpServer();
      smtp = await startFakeSmtpServer();
      channels = {
        hook: webhookChannel({ url: `${hookServer.url}/interlock`, secret: SECRET, timeoutMs: 300 }),
        slack: slackChannel({ webhookUrl: `${slackServer.url}/services/T/B/X`, timeoutMs: 300 }),
        mail: emailChannel({
          host: smtp.host,
          port: smtp.port,
          from: 'Interlock <interlock@example.com>',
          to: ['reviewers@example.com'],
        }),
      };
    });

    // Deliver whatever a test left behind, so the next test's runOnce sees only its own jobs.
    afterEach(async () => {
      hookServer.answer(verifying);
      slackServer.answer({ status: 200, body: 'ok' });
      smtp.failWith(null);
      const sink = recordingChannel('sink');
      const drainer = createNotifier({
        interlock: il,
        baseUrl: BASE,
        owner: 'drainer',
        routing: { channels: { sink }, default: ['sink'] },
      });
      for (let i = 0; i < 20; i++) {
        clock.advance(11 * 60_000);
        if ((await drainer.runOnce(100)).claimed === 0) break;
      }
    });

    after(async () => {
      await hookServer.close();
      await slackServer.close();
      await smtp.close();
      await backend.destroy();
    });

    const thread = () => ({ id: `t-${backend.name}-${++n}`, agent: 'support', agentVersion: '1' });

    async function pauseCall(tool: string, args: Record<string, unknown>) {
      const call = { tool, args };
      const { requests } = await il.pause({
        thread: thread(),
        items: [{ call, verdict: await il.gate(call), evidence: { customerMessage: 'SECRET-EVIDENCE <b>hi</b>' } }],
        proposer: 'agent:support',
      });
      return requests[0]!;
    }

    function notifier(
      routing: { routes?: Record<string, string[]>; default?: string[] },
      extra: Partial<NotifierOptions> = {},
    ) {
      return createNotifier({
        interlock: il,
        baseUrl: BASE,
        owner: 'notifier-test',
        routing: { channels, ...routing },
        ...extra,
      });
    }

    async function notifyJob(requestId: string) {
      const jobs = await store.listJobs({ requestId, kind: 'notify' });
      assert.equal(jobs.length, 1);
      return jobs[0]!;
    }

    const auditTypes = async (requestId: string) => (await store.listAudit({ requestId })).map((e) => e.type);

    it('delivers a pending request to the channels of its role, then completes and audits it', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-1', amount: 800 });
      const hooks = hookServer.received.length;
      const mails = smtp.mails.length;
      const slacks = slackServer.received.length;
      const result = await notifier({ routes: { supervisor: ['hook', 'mail'], retention_lead: ['slack'] } }).runOnce();
      assert.deepEqual(result, { claimed: 1, delivered: 1, retried: 0, dead: 0, skipped: 0, lost: 0 });

      const job = await notifyJob(req.id);
      assert.equal(job.status, 'done');
      const hook = hookServer.received[hooks]!;
      assert.ok(verifyWebhookSignature(hook.body, hook.headers['x-interlock-signature'], SECRET));
      assert.equal(hook.headers['x-interlock-delivery'], job.id);
      const body = hook.json() as WebhookBody;
      assert.equal(body.type, 'approval_requested');
      assert.equal(body.message.id, req.id);
      assert.equal(body.message.reviewUrl, `${BASE}/approvals/${req.id}`);
      assert.equal(body.message.role, 'supervisor');
      assert.equal(body.message.approvalsRequired, 1);
      assert.equal(body.message.expiresAt, req.expiresAt);
      assert.doesNotMatch(hook.body.toString('utf8'), /SECRET-EVIDENCE/, 'evidence is never sent');

      const mail = (await smtp.waitFor(mails + 1))[mails]!;
      assert.ok(mail.text.includes(`${BASE}/approvals/${req.id}`));
      assert.ok(mail.html.includes(`href="${BASE}/approvals/${req.id}"`));
      assert.doesNotMatch(mail.raw, /SECRET-EVIDENCE/);
      assert.equal(slackServer.received.length, slacks, 'slack is routed to another role');

      const events = await store.listAudit({ requestId: req.id });
      assert.deepEqual(
        events.map((e) => e.type),
        ['interrupted', 'notified'],
      );
      assert.equal(events[1]!.actor, 'system:notifier');
      assert.deepEqual(events[1]!.payload, { channels: ['hook', 'mail'], role: 'supervisor', attempts: 1 });
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');
      assert.equal((await il.verifyAudit()).ok, true);
      assert.equal((await notifier({ default: ['hook'] }).runOnce()).claimed, 0, 'nothing left to deliver');
    });

    it('routes each role to its own channels, and unrouted roles to the default', async () => {
      const cancel = await pauseCall('cancel_subscription', { subscriptionId: 'SUB-1' });
      const deploy = await pauseCall('deploy', { service: 'api', version: '1.2.3' });
      const hooks = hookServer.received.length;
      const slacks = slackServer.received.length;
      const result = await notifier({ routes: { retention_lead: ['slack'] }, default: ['hook'] }).runOnce();
      assert.equal(result.delivered, 2);
      const slack = slackServer.received.slice(slacks);
      assert.equal(slack.length, 1);
      const payload = slack[0]!.json() as SlackPayload;
      assert.match(JSON.stringify(payload.blocks), /Required role\*\\nretention_lead/);
      assert.match(JSON.stringify(payload.blocks), new RegExp(`${BASE}/approvals/${cancel.id}`));
      const hooked = hookServer.received.slice(hooks).map((r) => (r.json() as WebhookBody).message);
      assert.deepEqual(
        hooked.map((m) => [m.id, m.role]),
        [[deploy.id, 'sre']],
      );
      assert.deepEqual((await store.listAudit({ requestId: cancel.id })).at(-1)!.payload, {
        channels: ['slack'],
        role: 'retention_lead',
        attempts: 1,
      });
      assert.deepEqual((await store.listAudit({ requestId: deploy.id })).at(-1)!.payload, {
        channels: ['hook'],
        role: 'sre',
        attempts: 1,
      });
    });

    it('retries a failing or hanging receiver with backoff; the request stays pending and decidable', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-2', amount: 900 });
      const nf = notifier({ routes: { supervisor: ['hook'] } });
      const hooks = hookServer.received.length;

      hookServer.answer({ status: 500, body: 'receiver down' });
      const t0 = clock.now();
      assert.deepEqual(await nf.runOnce(), { claimed: 1, delivered: 0, retried: 1, dead: 0, skipped: 0, lost: 0 });
      let job = await notifyJob(req.id);
      assert.equal(job.status, 'ready');
      assert.equal(job.attempts, 1);
      assert.equal(job.runAt, t0 + 2_000, 'first retry after 2 s');
      assert.match(job.lastError ?? '', /^hook: http:\/\/127\.0\.0\.1:\d+ answered HTTP 500 \(receiver down\)/);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');
      assert.deepEqual(await auditTypes(req.id), ['interrupted'], 'a retry is not audited');
      assert.equal((await nf.runOnce()).claimed, 0, 'not due before its backoff');

      clock.advance(2_000);
      hookServer.answer('hang');
      assert.equal((await nf.runOnce()).retried, 1);
      job = await notifyJob(req.id);
      assert.equal(job.attempts, 2);
      assert.equal(job.runAt, clock.now() + 4_000, 'the delay doubles');
      assert.match(job.lastError ?? '', /did not answer within 300 ms/);
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');

      clock.advance(4_000);
      hookServer.answer(verifying);
      assert.equal((await nf.runOnce()).delivered, 1);
      const attempts = hookServer.received.slice(hooks);
      assert.equal(attempts.length, 3);
      assert.deepEqual(
        new Set(attempts.map((r) => r.headers['x-interlock-delivery'])),
        new Set([job.id]),
        'one delivery id across retries',
      );
      assert.equal((await notifyJob(req.id)).status, 'done');
      assert.deepEqual((await store.listAudit({ requestId: req.id })).at(-1)!.payload, {
        channels: ['hook'],
        role: 'supervisor',
        attempts: 3,
      });

      const decided = await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        alice,
      );
      assert.equal(decided.outcome, 'authorized');
    });

    it('never blocks a decision: decided while delivery fails, the stale notification is dropped', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-3', amount: 700 });
      const nf = notifier({ routes: { supervisor: ['hook'] } });
      hookServer.answer({ status: 503 });
      assert.equal((await nf.runOnce()).retried, 1);
      const hooks = hookServer.received.length;

      const decided = await il.decide(
        req.id,
        { type: 'reject', expectedVersion: req.version, actionHash: req.actionHash, message: 'no' },
        alice,
      );
      assert.equal(decided.request.status, 'rejected');

      clock.advance(2_000);
      hookServer.answer(verifying);
      assert.deepEqual(await nf.runOnce(), { claimed: 1, delivered: 0, retried: 0, dead: 0, skipped: 1, lost: 0 });
      assert.equal(hookServer.received.length, hooks, 'nobody is asked about a decided request');
      assert.equal((await notifyJob(req.id)).status, 'done');
      assert.deepEqual(await auditTypes(req.id), ['interrupted', 'rejected']);
    });

    it('gives up after the last attempt, audits the failed delivery, and the request stays decidable', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-4', amount: 600 });
      const nf = notifier({ routes: { supervisor: ['hook'] } }, { retry: { maxAttempts: 3 } });
      hookServer.answer({ status: 500, body: 'still down' });
      assert.equal((await nf.runOnce()).retried, 1);
      clock.advance(2_000);
      assert.equal((await nf.runOnce()).retried, 1);
      clock.advance(4_000);
      assert.deepEqual(await nf.runOnce(), { claimed: 1, delivered: 0, retried: 0, dead: 1, skipped: 0, lost: 0 });

      const job = await notifyJob(req.id);
      assert.equal(job.status, 'dead');
      assert.equal(job.attempts, 3);
      const events = await store.listAudit({ requestId: req.id });
      assert.deepEqual(
        events.map((e) => e.type),
        ['interrupted', 'notify_failed'],
      );
      const failed = events[1]!;
      assert.equal(failed.actor, 'system:notifier');
      assert.equal(failed.payload.delivery, true);
      assert.equal(failed.payload.jobId, job.id);
      assert.equal(failed.payload.attempts, 3);
      assert.deepEqual(failed.payload.channels, ['hook']);
      assert.deepEqual(failed.payload.succeeded, []);
      assert.match(String(failed.payload.error), /HTTP 500 \(still down\)/);

      clock.advance(20 * 60_000); // later, but still inside the request's 30 min
      assert.equal((await nf.runOnce()).claimed, 0, 'a dead delivery is not retried');
      const decided = await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        alice,
      );
      assert.equal(decided.outcome, 'authorized');
    });

    it('retries the whole job when one channel fails; the other gets a duplicate with the same delivery id', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-5', amount: 1200 });
      const nf = notifier({ routes: { supervisor: ['hook', 'slack'] } });
      const hooks = hookServer.received.length;
      slackServer.answer({ status: 500, body: 'slack hiccup' });
      assert.equal((await nf.runOnce()).retried, 1);
      assert.match((await notifyJob(req.id)).lastError ?? '', /^slack: .*HTTP 500 \(slack hiccup\)/);
      assert.doesNotMatch(
        (await notifyJob(req.id)).lastError ?? '',
        /services\/T\/B\/X/,
        'the Slack webhook path is a secret',
      );
      clock.advance(2_000);
      slackServer.answer({ status: 200, body: 'ok' });
      assert.equal((await nf.runOnce()).delivered, 1);
      const received = hookServer.received.slice(hooks);
      assert.equal(received.length, 2, 'the webhook received the message twice');
      const job = await notifyJob(req.id);
      assert.deepEqual(
        received.map((r) => r.headers['x-interlock-delivery']),
        [job.id, job.id],
      );
      assert.deepEqual((await store.listAudit({ requestId: req.id })).at(-1)!.payload, {
        channels: ['hook', 'slack'],
        role: 'supervisor',
        attempts: 2,
      });
    });

    it('retries e-mail the SMTP server refuses', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-6', amount: 650 });
      const nf = notifier({ routes: { supervisor: ['mail'] } });
      const mails = smtp.mails.length;
      smtp.failWith(451);
      assert.equal((await nf.runOnce()).retried, 1);
      assert.match((await notifyJob(req.id)).lastError ?? '', /^mail: SMTP send failed/);
      clock.advance(2_000);
      smtp.failWith(null);
      assert.equal((await nf.runOnce()).delivered, 1);
      const mail = (await smtp.waitFor(mails + 1))[mails]!;
      assert.equal(mail.headers.get('x-interlock-delivery'), (await notifyJob(req.id)).id);
      assert.ok(mail.text.includes(`${BASE}/approvals/${req.id}`));
    });

    it('tells the role of a notify-tier action after it ran (FYI)', async () => {
      const call = { tool: 'send_invoice', args: { customerId: 'c9', amount: 120 } };
      const verdict = await il.gate(call);
      assert.equal(verdict.tier, 'notify');
      const key = `inv-${backend.name}-${++n}`;
      const out = await il.executeOnce(
        { key, tool: call.tool, args: call.args, auditType: 'auto_executed', notifyRole: verdict.role },
        async () => ({ ok: true }),
      );
      assert.equal(out.status, 'succeeded');
      const hooks = hookServer.received.length;
      assert.equal((await notifier({ routes: { finance: ['hook'] } }).runOnce()).delivered, 1);
      const body = hookServer.received[hooks]!.json() as WebhookBody;
      assert.equal(body.type, 'fyi');
      assert.equal(body.message.tool, 'send_invoice');
      assert.equal(body.message.role, 'finance');
      assert.equal(body.message.reviewUrl, null, 'nothing to review');
      assert.deepEqual(body.message.args, call.args);
      const notified = (await store.listAudit({})).filter((e) => e.type === 'notified').at(-1)!;
      assert.deepEqual(notified.payload, { channels: ['hook'], role: 'finance', fyi: true, attempts: 1 });
      assert.equal(notified.requestId, null);
    });

    it('bounds a channel that never settles by sendTimeoutMs', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-7', amount: 777 });
      const stuck: Channel = { name: 'stuck', send: () => new Promise<void>(() => {}) };
      const nf = createNotifier({
        interlock: il,
        baseUrl: BASE,
        sendTimeoutMs: 100,
        leaseMs: 1_000,
        routing: { channels: { stuck }, default: ['stuck'] },
      });
      assert.equal((await nf.runOnce()).retried, 1);
      assert.equal((await notifyJob(req.id)).lastError, 'stuck: gave no answer within 100 ms; it will be retried.');
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');
    });

    it('keeps the job of a channel slower than the lease (renewed while sending): no second notifier sends it again', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-8', amount: 778 });
      const sent: string[] = [];
      const slow: Channel = {
        name: 'slow',
        send: async (m, meta) => {
          sent.push(meta!.deliveryId);
          await new Promise((r) => setTimeout(r, 1200));
        },
      };
      const make = (owner: string) =>
        createNotifier({
          interlock: il,
          baseUrl: BASE,
          owner,
          leaseMs: 300,
          routing: { channels: { slow }, default: ['slow'] },
        });
      const first = make('notifier-1').runOnce();
      // Past the first lease (on the engine's clock) while the send goes on, renewed meanwhile (every 100 ms):
      // a second notifier finds nothing to claim.
      while (sent.length === 0) await new Promise((r) => setTimeout(r, 10));
      const claimedUntil = (await notifyJob(req.id)).leaseUntil!;
      clock.advance(250);
      // Wait (on the real clock) for a renewal to land, rather than for a fixed time: a loaded machine may be slow.
      for (
        let j = await notifyJob(req.id);
        j.status === 'running' && j.leaseUntil! <= claimedUntil;
        j = await notifyJob(req.id)
      )
        await new Promise((r) => setTimeout(r, 20));
      clock.advance(250);
      assert.equal((await make('notifier-2').runOnce()).claimed, 0, 'the lease was renewed while sending');
      assert.equal((await first).delivered, 1);
      assert.equal(sent.length, 1);
      assert.equal((await notifyJob(req.id)).status, 'done');
    });

    it('a notifier that dies holding a job loses it to another after one lease, sent under the same delivery id', async () => {
      const req = await pauseCall('issue_refund', { orderId: 'ORD-9', amount: 779 });
      const ids: string[] = [];
      const hook: Channel = { name: 'hook', send: async (_m, meta) => void ids.push(meta!.deliveryId) };
      // Claimed and never settled: what a notifier killed mid-send leaves behind.
      const t = il.now();
      const [job] = await il.jobs.claimJobs(['notify'], 'notifier-dead', t, t + 300, 10);
      assert.equal(job?.requestId, req.id);
      const live = createNotifier({
        interlock: il,
        baseUrl: BASE,
        owner: 'notifier-live',
        leaseMs: 300,
        routing: { channels: { hook }, default: ['hook'] },
      });
      assert.equal((await live.runOnce()).claimed, 0, 'not while the lease holds');
      clock.advance(301);
      assert.equal((await live.runOnce()).delivered, 1);
      assert.deepEqual(ids, [job.id]);
    });

    it('a role with no route and no default is a dead delivery at once, audited with how to fix it', async () => {
      const req = await pauseCall('deploy', { service: 'billing' });
      assert.deepEqual(await notifier({ routes: { supervisor: ['hook'] } }).runOnce(), {
        claimed: 1,
        delivered: 0,
        retried: 0,
        dead: 1,
        skipped: 0,
        lost: 0,
      });
      const failed = (await store.listAudit({ requestId: req.id })).at(-1)!;
      assert.equal(failed.type, 'notify_failed');
      assert.match(
        String(failed.payload.error),
        /no channel is routed for role "sre": add routes\["sre"\] or a default/,
      );
      assert.equal((await il.getRequestOrThrow(req.id)).status, 'pending');
    });

    it('escapes hostile arguments in Slack text and e-mail HTML, end to end', async () => {
      const req = await pauseCall('issue_refund', {
        orderId: '<script>alert("x")</script>',
        amount: 999,
        note: '<!channel> <https://evil.example|approve here>',
      });
      const slacks = slackServer.received.length;
      const mails = smtp.mails.length;
      assert.equal((await notifier({ routes: { supervisor: ['slack', 'mail'] } }).runOnce()).delivered, 1);
      const slackRaw = slackServer.received[slacks]!.body.toString('utf8');
      assert.match(slackRaw, /&lt;script&gt;alert\(\\"x\\"\)&lt;\/script&gt;/);
      assert.match(slackRaw, /&lt;!channel&gt; &lt;https:\/\/evil\.example\|approve here&gt;/);
      assert.doesNotMatch(slackRaw, /<script|<!channel>|<https:\/\/evil/);
      const mail = (await smtp.waitFor(mails + 1))[mails]!;
      assert.match(mail.html, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/);
      assert.doesNotMatch(mail.html, /<script|<!channel>|href="https:\/\/evil/);
      assert.ok(mail.html.includes(`href="${BASE}/approvals/${req.id}"`));
    });

    it('two notifiers on one database deliver each job once', async () => {
      const store2 = await backend.create(); // a second "process" on the same database
      const reqs = [];
      for (let i = 0; i < 6; i++) reqs.push(await pauseCall('issue_refund', { orderId: `ORD-P${i}`, amount: 501 + i }));
      const hooks = hookServer.received.length;
      const a = notifier({ routes: { supervisor: ['hook'] } }, { owner: 'notifier-a' });
      const b = createNotifier({
        interlock: createInterlock({ store: store2, policy: { tools: {} }, now: clock.now }),
        baseUrl: BASE,
        owner: 'notifier-b',
        routing: { channels, routes: { supervisor: ['hook'] } },
      });
      const [ra, rb] = await Promise.all([a.runOnce(10), b.runOnce(10)]);
      assert.equal(ra.delivered + rb.delivered, 6);
      const ids = hookServer.received.slice(hooks).map((r) => (r.json() as WebhookBody).message.id);
      assert.equal(ids.length, 6);
      assert.deepEqual(new Set(ids), new Set(reqs.map((r) => r.id)));
      assert.equal((await il.verifyAudit()).ok, true);
    });

    it('validates its options at creation', () => {
      assert.throws(
        () =>
          createNotifier({ interlock: il, baseUrl: 'interlock.example.com', routing: { channels, default: ['hook'] } }),
        (e: Error) => e instanceof ConfigError && /baseUrl: must be the public http\(s\) URL/.test(e.message),
      );
      assert.throws(
        () => createNotifier({ baseUrl: BASE, routing: { channels, default: ['hook'] } }),
        (e: Error) => e instanceof ConfigError && /pass "interlock"/.test(e.message),
      );
      assert.throws(
        () => createNotifier({ interlock: il, baseUrl: BASE, routing: { channels, routes: { supervisor: ['sms'] } } }),
        (e: Error) => e instanceof ConfigError && /names channel "sms"/.test(e.message),
      );
      assert.throws(
        () => createNotifier({ interlock: il, baseUrl: BASE, leaseMs: 10, routing: { channels, default: ['hook'] } }),
        (e: Error) => e instanceof ConfigError && /leaseMs: must be at least 100 ms/.test(e.message),
      );
    });
  });
}
