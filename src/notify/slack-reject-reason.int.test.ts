/**
 * Rejecting from Slack on a request whose rule requires a reason: a blank reject form is answered
 * with the engine's refusal beside the message field, and nothing changes; with a reason it lands.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { allBackends } from '../testing/backends.ts';
import { startFakeSlack, type FakeSlack } from '../testing/fake-slack.ts';
import { startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';
import { createSlackApp, type SlackApp } from './slack-app.ts';
import type { ButtonValue } from './slack-interactive.ts';

const SECRET = 'test-signing-secret-4d2e';

for (const backend of allBackends()) {
  describe(`a required reject reason in Slack on ${backend.name}`, () => {
    let f: ServerFixture;
    let fake: FakeSlack;
    before(async () => {
      fake = await startFakeSlack();
      const holder: { app?: SlackApp } = {};
      f = await startServerFixture(backend, { slack: { handle: (r) => holder.app!.handle(r) } });
      holder.app = createSlackApp({
        interlock: f.interlock,
        botToken: 'xoxb-test',
        signingSecret: SECRET,
        baseUrl: f.url,
        apiUrl: fake.url,
        onError: () => undefined,
      });
      await f.interlock.reviewers.linkIdentity('slack', 'U_BOB', f.ids.bob, f.clock.now());
    });
    after(async () => {
      await f.close();
      await fake.close();
    });

    /** Send a reject form as Slack does (form-encoded, signed with the v0 HMAC). */
    async function submitReject(value: string, text: string | null, choice?: string) {
      const payload = {
        type: 'view_submission',
        user: { id: 'U_BOB' },
        view: {
          callback_id: 'interlock_reject',
          private_metadata: value,
          state: {
            values: {
              message: { text: { value: text } },
              ...(choice === undefined ? {} : { reason: { choice: { selected_option: { value: choice } } } }),
            },
          },
        },
      };
      return post(payload);
    }

    /** Click a message's Reject button, as Slack sends it. */
    function clickReject(value: string) {
      return post({
        type: 'block_actions',
        user: { id: 'U_BOB' },
        trigger_id: 'trig-1',
        actions: [{ action_id: 'interlock_reject', value }],
      });
    }

    async function post(payload: unknown) {
      const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
      const ts = String(Math.floor(f.clock.now() / 1000));
      const sig = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;
      const res = await fetch(`${f.url}/slack/interactions`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Slack-Request-Timestamp': ts,
          'X-Slack-Signature': sig,
        },
        body,
      });
      return (await res.json()) as { response_action?: string; errors?: { message?: string } };
    }

    async function pending(orderId: string) {
      const call = { tool: 'issue_refund', args: { orderId, customerId: 'c1', amount: 800 } };
      const verdict = await f.interlock.gate(call);
      const { requests } = await f.interlock.pause({
        thread: { id: `slack-rr-${backend.name}-${orderId}`, agent: 'support', agentVersion: '1' },
        items: [
          {
            call,
            verdict: {
              ...verdict,
              rejectReasons: { required: true, choices: ['Duplicate request', 'Over the order total'] },
            },
          },
        ],
        proposer: 'agent:support',
      });
      const req = requests[0]!;
      return { req, value: JSON.stringify({ id: req.id, v: req.version, h: req.actionHash } satisfies ButtonValue) };
    }

    it("the reject form offers the rule's canned reasons and says one is required", async () => {
      const { value } = await pending('ORD-S2');
      await clickReject(value);
      const view = (fake.of('views.open').at(-1)?.body as { view?: { blocks?: unknown[] } } | undefined)?.view;
      const blocks = JSON.stringify(view?.blocks ?? []);
      assert.match(blocks, /"static_select"/);
      assert.match(blocks, /"Duplicate request".*"Over the order total"/);
      assert.match(blocks, /Reason \(required: pick one, or write it below\)/);
    });

    it('a picked reason alone lands as the message; with words of its own, both', async () => {
      const a = await pending('ORD-S3');
      assert.deepEqual(await submitReject(a.value, null, 'Duplicate request'), {});
      assert.equal((await f.interlock.getRequestOrThrow(a.req.id)).resolution?.message, 'Duplicate request');
      const b = await pending('ORD-S4');
      assert.deepEqual(await submitReject(b.value, 'see ORD-7', 'Over the order total'), {});
      assert.equal(
        (await f.interlock.getRequestOrThrow(b.req.id)).resolution?.message,
        'Over the order total — see ORD-7',
      );
    });

    it('a blank reason is refused beside the field; a reason lands', async () => {
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-S1', customerId: 'c1', amount: 800 } };
      const verdict = await f.interlock.gate(call);
      const { requests } = await f.interlock.pause({
        thread: { id: `slack-rr-${backend.name}`, agent: 'support', agentVersion: '1' },
        items: [{ call, verdict: { ...verdict, rejectReasons: { required: true, choices: ['Duplicate request'] } } }],
        proposer: 'agent:support',
      });
      const req = requests[0]!;
      // What the reject button carries (the request, its version and action hash), as the modal keeps it.
      const value = JSON.stringify({ id: req.id, v: req.version, h: req.actionHash } satisfies ButtonValue);
      const blank = await submitReject(value, '   ');
      assert.equal(blank.response_action, 'errors');
      assert.match(
        blank.errors?.message ?? '',
        /needs a reason.*"Duplicate request".*\(reason_required\)\. Nothing changed\./,
      );
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending');
      assert.deepEqual(await submitReject(value, 'Duplicate request'), {});
      const after = await f.interlock.getRequestOrThrow(req.id);
      assert.equal(after.status, 'rejected');
      assert.equal(after.resolution?.message, 'Duplicate request');
    });
  });
}
