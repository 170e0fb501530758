/**
 * Deciding in Slack: interactive messages posted to a local fake of Slack's Web API, interaction
 * payloads signed as Slack signs them and sent to the real HTTP endpoint, on both backends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { allBackends } from '../testing/backends.ts';
import { startFakeSlack, type FakeSlack } from '../testing/fake-slack.ts';
import type { ApprovalRequest } from '../core/index.ts';
import { startServerFixture, testPolicy, type ServerFixture } from '../../test/support/server-fixture.ts';
import { createInterlock } from '../engine/index.ts';
import { approvalRequestedMessage } from './message.ts';
import { createSlackApp, type SlackApp } from './slack-app.ts';

const SECRET = 'test-signing-secret-8c1f';

for (const backend of allBackends()) {
  describe(`decisions in Slack on ${backend.name}`, () => {
    let f: ServerFixture;
    let fake: FakeSlack;
    let slack: SlackApp;
    let stop: () => void;

    before(async () => {
      fake = await startFakeSlack();
      // The app is built over the fixture's engine once it exists; the server reaches it through this holder.
      const holder: { app?: SlackApp } = {};
      f = await startServerFixture(backend, { slack: { handle: (r) => holder.app!.handle(r) } });
      slack = createSlackApp({
        interlock: f.interlock,
        botToken: 'xoxb-test',
        signingSecret: SECRET,
        baseUrl: f.url,
        apiUrl: fake.url,
        onError: () => undefined,
      });
      holder.app = slack;
      stop = slack.start(100); // a short sweep, for the test of decisions no event announces
      const link = (user: string, who: keyof ServerFixture['ids']) =>
        f.interlock.reviewers.linkIdentity('slack', user, f.ids[who], f.clock.now());
      await link('U_ALICE', 'alice');
      await link('U_BOB', 'bob');
      await link('U_CAROL', 'carol');
    });
    after(async () => {
      stop();
      await f.close();
      await fake.close();
    });

    /** Post the request to the supervisors' channel as the notifier would, and return the buttons' value. */
    async function posted(req: ApprovalRequest): Promise<string> {
      await slack.channel('C_SUP').send(approvalRequestedMessage(req, f.url));
      return buttonValue(fake.of('chat.postMessage').at(-1)!.body);
    }
    function buttonValue(body: Record<string, unknown>): string {
      const blocks = body.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value?: string }> }>;
      return blocks.find((b) => b.type === 'actions')!.elements!.find((e) => e.action_id === 'interlock_approve')!
        .value!;
    }
    /** Sign and send an interaction as Slack does (form-encoded `payload`, v0 HMAC over timestamp and body). */
    async function interact(payload: Record<string, unknown>, o: { ts?: number; secret?: string } = {}) {
      const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
      const ts = String(o.ts ?? Math.floor(f.clock.now() / 1000));
      const sig = `v0=${createHmac('sha256', o.secret ?? SECRET)
        .update(`v0:${ts}:${body}`)
        .digest('hex')}`;
      const res = await fetch(`${f.url}/slack/interactions`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Slack-Request-Timestamp': ts,
          'X-Slack-Signature': sig,
        },
        body,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }
    const click = (user: string, action: string, value: string) =>
      interact({
        type: 'block_actions',
        user: { id: user },
        channel: { id: 'C_SUP' },
        trigger_id: 'trig_1',
        actions: [{ action_id: action, value }],
      });
    const submit = (user: string, kind: 'reject' | 'respond', value: string, text: string) =>
      interact({
        type: 'view_submission',
        user: { id: user },
        view: {
          callback_id: `interlock_${kind}`,
          private_metadata: value,
          state: { values: { message: { text: { value: text } } } },
        },
      });
    const status = async (id: string) => (await f.interlock.getRequestOrThrow(id)).status;
    const lastEphemeral = () => JSON.stringify(fake.of('chat.postEphemeral').at(-1)?.body.text ?? '');

    it('posts the action, arguments, reason, tier, approvals, expiry, quoted evidence and four buttons', async () => {
      const req = await f.pauseRefund(900);
      await posted(req);
      const body = fake.of('chat.postMessage').at(-1)!;
      assert.equal(body.token, 'xoxb-test');
      assert.equal(body.body.channel, 'C_SUP');
      const text = JSON.stringify(body.body.blocks);
      for (const part of [
        'issue_refund',
        'refund over $500',
        'Tier',
        'approve',
        'Required role',
        'supervisor',
        'Expires',
        'Evidence (untrusted',
      ])
        assert.ok(text.includes(part), part);
      const actions = (
        body.body.blocks as Array<{ type: string; elements?: Array<{ action_id: string; url?: string }> }>
      ).find((b) => b.type === 'actions')!;
      assert.deepEqual(
        actions.elements!.map((e) => e.action_id),
        ['interlock_approve', 'interlock_reject', 'interlock_respond', 'interlock_edit'],
      );
      assert.equal(actions.elements![3]!.url, `${f.url}/approvals/${req.id}`);
      const ts = `1700000000.${String(fake.of('chat.postMessage').length).padStart(6, '0')}`;
      assert.deepEqual(await f.interlock.reviewers.listPostedMessages(req.id, 'slack'), [`C_SUP:${ts}`]);
    });

    it('Approve decides through the engine, and the message shows who decided instead of buttons', async () => {
      const req = await f.pauseRefund(910);
      const value = await posted(req);
      const r = await click('U_ALICE', 'interlock_approve', value);
      assert.equal(r.status, 200);
      assert.equal(await status(req.id), 'authorized');
      const update = fake.of('chat.update').at(-1)!;
      assert.equal(update.body.channel, 'C_SUP');
      assert.match(JSON.stringify(update.body.blocks), /\*Approved\* by alice at /);
      assert.doesNotMatch(JSON.stringify(update.body.blocks), /interlock_approve/);
    });

    it('Reject opens a modal for the message; Respond too; each lands with the text', async () => {
      for (const kind of ['reject', 'respond'] as const) {
        const req = await f.pauseRefund(920);
        const value = await posted(req);
        await click('U_BOB', `interlock_${kind}`, value);
        const view = fake.of('views.open').at(-1)!.body;
        assert.equal(view.trigger_id, 'trig_1');
        const modal = view.view as { callback_id: string; private_metadata: string };
        assert.equal(modal.callback_id, `interlock_${kind}`);
        const r = await submit(
          'U_BOB',
          kind,
          modal.private_metadata,
          kind === 'reject' ? 'order already refunded' : 'offer store credit',
        );
        assert.deepEqual(r.body, {});
        const after = await f.interlock.getRequestOrThrow(req.id);
        assert.equal(after.status, kind === 'reject' ? 'rejected' : 'responded');
        assert.equal(after.resolution?.message, kind === 'reject' ? 'order already refunded' : 'offer store credit');
      }
    });

    it('refuses a bad signature and an old timestamp, and changes nothing', async () => {
      const req = await f.pauseRefund(930);
      const value = await posted(req);
      const payload = {
        type: 'block_actions',
        user: { id: 'U_ALICE' },
        actions: [{ action_id: 'interlock_approve', value }],
      };
      const forged = await interact(payload, { secret: 'not-the-secret-1234' });
      assert.equal(forged.status, 401);
      const old = await interact(payload, { ts: Math.floor(f.clock.now() / 1000) - 301 });
      assert.equal(old.status, 401);
      assert.match(JSON.stringify(old.body), /stale timestamp/);
      // Signed, but not a button of ours: a clear 400.
      const odd = await interact({ ...payload, actions: [{ action_id: 'interlock_approve', value: '{"id":42}' }] });
      assert.equal(odd.status, 400);
      assert.equal(await status(req.id), 'pending');
    });

    it('an unknown Slack user, a wrong role and a stale click are refused with an ephemeral message and audited', async () => {
      const req = await f.pauseRefund(940);
      const value = await posted(req);
      await click('U_NOBODY', 'interlock_approve', value);
      assert.match(lastEphemeral(), /not linked to an Interlock reviewer.*link-slack/);
      await click('U_CAROL', 'interlock_approve', value);
      assert.match(lastEphemeral(), /forbidden_role/);
      assert.equal(await status(req.id), 'pending');
      const refused = (await f.store.listAudit({ requestId: req.id })).filter((e) => e.type === 'refused');
      assert.deepEqual(
        refused.map((e) => e.payload.code),
        ['unknown_reviewer', 'forbidden_role'],
      );
      // Alice decides in the UI; Bob's click on the old message is stale.
      await f.call(`/api/v1/approvals/${req.id}/decision`, 'alice', {
        method: 'POST',
        body: { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
      });
      await click('U_BOB', 'interlock_approve', value);
      assert.match(lastEphemeral(), /Already decided: authorized by alice at .*Nothing changed/);
      // A reviewer without the role learns no more than the API tells them: not who decided, nor when.
      await click('U_CAROL', 'interlock_approve', value);
      assert.match(lastEphemeral(), /forbidden_role/);
      assert.doesNotMatch(lastEphemeral(), /alice|Already decided|authorized/);
    });

    it('an unknown action or form is refused, not taken as approve; a respond over the one message limit changes nothing', async () => {
      const req = await f.pauseRefund(945);
      const value = await posted(req);
      const odd = await click('U_BOB', 'interlock_something_else', value);
      assert.equal(odd.status, 400);
      assert.equal(await status(req.id), 'pending');
      const form = await interact({
        type: 'view_submission',
        user: { id: 'U_BOB' },
        view: {
          callback_id: 'other',
          private_metadata: value,
          state: { values: { message: { text: { value: 'x' } } } },
        },
      });
      assert.equal(form.status, 400);
      const long = await submit('U_BOB', 'respond', value, 'y'.repeat(30_079));
      assert.match(JSON.stringify(long.body), /at most 10000 characters/);
      assert.equal(await status(req.id), 'pending');
    });

    it('an expired request cannot be decided from Slack', async () => {
      const req = await f.pauseRefund(950);
      const value = await posted(req);
      f.clock.advance(31 * 60_000);
      await click('U_ALICE', 'interlock_approve', value);
      assert.match(lastEphemeral(), /\(request_expired\)\. Nothing changed/);
      assert.equal(await status(req.id), 'pending', 'nothing changed until the sweeper applies the default');
    });

    it('a quorum of two Slack reviewers: each counts once, and the second click carries the updated version', async () => {
      const req = await f.pauseRefund(2500);
      assert.equal(req.approvalsRequired, 2);
      const first = await posted(req);
      await click('U_ALICE', 'interlock_approve', first);
      assert.equal(await status(req.id), 'pending');
      const updated = buttonValue(fake.of('chat.update').at(-1)!.body);
      assert.notEqual(updated, first, 'the message carries the new version');
      await click('U_ALICE', 'interlock_approve', updated);
      assert.match(lastEphemeral(), /duplicate_reviewer/);
      await click('U_BOB', 'interlock_approve', updated);
      assert.equal(await status(req.id), 'authorized');
    });

    it('a decision no event announces (another process’s engine, the CLI on SQLite) is caught by the sweep', async () => {
      const req = await f.pauseRefund(970);
      await posted(req);
      // A second engine over the same database: its events are its own (on SQLite nothing carries them over).
      const other = createInterlock({ store: f.store, policy: testPolicy, now: f.clock.now });
      await other.decide(
        req.id,
        { type: 'reject', message: 'decided from the CLI', expectedVersion: req.version, actionHash: req.actionHash },
        { id: f.ids.bob, name: 'bob', roles: ['supervisor'] },
      );
      const shows = () =>
        JSON.stringify(fake.of('chat.update').map((c) => c.body.blocks)).includes('decided from the CLI');
      for (let i = 0; i < 100 && !shows(); i++) await sleep(20);
      assert.ok(shows(), 'the message shows the CLI decision');
      // The message's new version is recorded after Slack answered the update: wait for that write too.
      const stale = () => f.interlock.reviewers.listStalePostedMessages('slack', 50);
      for (let i = 0; i < 100 && (await stale()).length > 0; i++) await sleep(20);
      assert.deepEqual(await stale(), []);
    });

    it('the message is updated after a decision made elsewhere (the reviewer UI’s API)', async () => {
      const req = await f.pauseRefund(960);
      await posted(req);
      const before = fake.of('chat.update').length;
      await f.call(`/api/v1/approvals/${req.id}/decision`, 'bob', {
        method: 'POST',
        body: {
          type: 'reject',
          message: 'customer asked to cancel',
          expectedVersion: req.version,
          actionHash: req.actionHash,
        },
      });
      for (let i = 0; i < 50 && fake.of('chat.update').length === before; i++) await sleep(20);
      const update = fake.of('chat.update').at(-1)!;
      assert.match(JSON.stringify(update.body.blocks), /\*Rejected\* by bob at .*customer asked to cancel/);
    });
  });
}
