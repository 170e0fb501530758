/**
 * Planted checks through the HTTP API: a reviewer cannot tell one from a real request before deciding,
 * no path runs it (a batch approval, a timeout default of approve), a timeout default of abort does
 * not abort the real thread, and only operators can list them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { InterlockError, type ApprovalRequest, type TimeoutDecision } from '../core/index.ts';
import { startServerFixture, testPolicy, type ServerFixture } from '../../test/support/server-fixture.ts';
import { batchDigest } from './batch-digest.ts';
import { approvalRequestedMessage } from '../notify/message.ts';
import { emailMessage } from '../notify/email-message.ts';
import { requestMessage } from '../notify/slack-interactive.ts';
import type { EngineEvent } from '../engine/index.ts';
import { createWebUi } from './index.ts';

const REAL_CALL_ID = 'call_Qm3xT8vLw2ZpK7rYc4NbH9dF';

type Answer = { results: Array<{ id: string; ok: boolean; outcome?: string; error?: { code: string } }> };

for (const backend of allBackends()) {
  describe(`planted checks over HTTP on ${backend.name}`, () => {
    let f: ServerFixture;
    let n = 0;
    before(async () => {
      f = await startServerFixture(backend, { ui: createWebUi() });
    });
    after(() => f.close());

    /** An engine over the fixture's database whose large-refund rule plants a check beside every request. */
    function planting(onTimeout: TimeoutDecision = 'reject'): Interlock {
      const [small, large, huge] = testPolicy.tools.issue_refund as [object, object, object];
      return createInterlock({
        store: f.store,
        now: f.clock.now,
        random: () => 0,
        policy: {
          tools: {
            issue_refund: [
              small,
              {
                ...large,
                onTimeout,
                plant: {
                  rate: 1,
                  template: ({ args }: { args: Record<string, unknown> }) => ({
                    args: { ...args, customerId: 'cus_does_not_exist' },
                  }),
                },
              },
              huge,
            ] as never,
          },
        },
      });
    }

    async function pauseWithCheck(il: Interlock): Promise<{ real: ApprovalRequest; check: ApprovalRequest }> {
      const threadId = `planted-http-${backend.name}-${++n}`;
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', customerId: 'cus_1', amount: 700 } };
      const { requests } = await il.pause({
        thread: { id: threadId, agent: 'support', agentVersion: '1' },
        // The conversation so far: the model's call, as providers make its id (a prefix, 24 random characters).
        checkpoint: {
          newMessages: [
            { role: 'user', content: 'Refund my order ORD-1, please.' },
            {
              role: 'assistant',
              content: [{ type: 'tool-call', toolCallId: REAL_CALL_ID, toolName: call.tool, input: call.args }],
            },
          ],
          state: {},
          schemaVersion: 1,
        },
        items: [{ call, toolCallId: REAL_CALL_ID, verdict: await il.gate(call) }],
        proposer: 'agent:support',
      });
      const check = (await f.store.listRequests({ threadId, planted: true })).items[0]!;
      return { real: requests[0]!, check };
    }

    const neverRuns = async (il: Interlock, check: ApprovalRequest) => {
      assert.equal((await il.requestOutcome(check.id)).state, 'cancelled');
      assert.notEqual((await il.callOutcome(check.threadId, check.toolCallId!))?.request.id, check.id);
      await assert.rejects(
        il.executeOnce(
          {
            key: `${check.id}:${check.actionHash}`,
            tool: check.tool,
            args: check.args,
            requestId: check.id,
            threadId: check.threadId,
          },
          async () => 'ran',
        ),
        (e: unknown) => e instanceof InterlockError && e.code === 'planted_check',
      );
    };

    it('the queue and the review packet read the same as a real request’s until it is decided', async () => {
      const { real, check } = await pauseWithCheck(planting());
      const queue = await f.call<{ items: Array<Record<string, unknown>> }>(
        '/api/v1/approvals?status=pending',
        'alice',
      );
      const inQueue = queue.body.items.find((i) => i.id === check.id)!;
      const realInQueue = queue.body.items.find((i) => i.id === real.id)!;
      assert.deepEqual(Object.keys(inQueue).sort(), Object.keys(realInQueue).sort());
      const packet = await f.call<Record<string, unknown>>(`/api/v1/approvals/${check.id}`, 'alice');
      const realPacket = await f.call<Record<string, unknown>>(`/api/v1/approvals/${real.id}`, 'alice');
      assert.deepEqual(Object.keys(packet.body).sort(), Object.keys(realPacket.body).sort());
      assert.equal(packet.body.plantedCheck, undefined);
      const decided = await f.call<{ plantedCheck?: { caught: boolean } }>(
        `/api/v1/approvals/${check.id}/decision`,
        'alice',
        {
          method: 'POST',
          body: {
            type: 'reject',
            message: 'no such customer',
            expectedVersion: check.version,
            actionHash: check.actionHash,
          },
        },
      );
      assert.deepEqual(decided.body.plantedCheck, { caught: true });
      const after = await f.call<{ plantedCheck?: { caught: boolean } }>(`/api/v1/approvals/${check.id}`, 'alice');
      assert.deepEqual(after.body.plantedCheck, { caught: true });
    });

    it('plays the reviewer: what a reviewer can read tells a planted check from a real request no better than chance', async (t) => {
      const il = planting();
      // What the engine emits as each request opens: the live events (SSE) a reviewer's page receives.
      const live = new Map<string, EngineEvent>();
      il.on((e) => {
        if (e.type === 'approval.created') live.set(e.requestId, e);
      });
      const shape = (v: unknown, r: ApprovalRequest): string =>
        JSON.stringify(v)
          .replaceAll(r.id, '<id>')
          .replaceAll(r.actionHash, '<hash>')
          .replace(/"(customerId|amount|orderId)":("[^"]*"|\d+)/g, '"$1":<arg>')
          .replace(/cus_[a-z_0-9]+/g, '<arg>');
      // Features of each request, from the reads a supervisor has: per pair, the planted one's must equal the real one's.
      const features = async (r: ApprovalRequest) => {
        const story = await f.call<{ events: Array<{ type: string }> }>(`/api/v1/approvals/${r.id}/story`, 'alice');
        const item = (
          await f.call<{ items: Array<Record<string, unknown>> }>(
            `/api/v1/approvals?status=pending&threadId=${encodeURIComponent(r.threadId)}`,
            'alice',
          )
        ).body.items.find((i) => i.id === r.id);
        const packet = await f.call<Record<string, unknown>>(`/api/v1/approvals/${r.id}`, 'alice');
        const thread = await f.call<{ pendingApprovals?: Array<{ id: string }> }>(
          `/api/v1/threads/${encodeURIComponent(r.threadId)}`,
          'alice',
        );
        const timeline = await f.call<{
          messages: Array<{ content: unknown }>;
          requests: Array<{ id: string; toolCallId: string | null }>;
        }>(`/api/v1/threads/${encodeURIComponent(r.threadId)}/timeline`, 'alice');
        const mineOnTimeline = timeline.body.requests.find((x) => x.id === r.id);
        // The thread's audit as a reviewer reads it: is the request's `interrupted` event right after the one before it?
        const events = await f.store.listAudit({ threadId: r.threadId });
        const mine = events.findIndex((e) => e.type === 'interrupted' && e.requestId === r.id);
        const before = events[mine - 1];
        const cut = Math.max(r.toolCallId!.lastIndexOf('_'), r.toolCallId!.lastIndexOf('-')) + 1;
        const slack = requestMessage(r, f.url) as {
          blocks: Array<{ type: string; elements?: Array<{ action_id?: string }> }>;
        };
        const email = emailMessage(approvalRequestedMessage(r, f.url));
        return {
          'story event types': story.body.events.map((e) => e.type).join(','),
          'queue item fields': Object.keys(item ?? {})
            .sort()
            .join(','),
          'review packet fields': Object.keys(packet.body).sort().join(','),
          "listed in the thread read's pending approvals (with the service's threads)": (
            thread.body.pendingApprovals ?? []
          ).some((x) => x.id === r.id),
          'placed under a call of the conversation on the timeline': JSON.stringify(timeline.body.messages).includes(
            `"${mineOnTimeline?.toolCallId}"`,
          ),
          'gap in the thread chain before it': before ? events[mine]!.chainSeq - before.chainSeq !== 1 : false,
          'call id shape': `${r.toolCallId!.slice(0, cut)}…${r.toolCallId!.length}`,
          'live event (approval.created)': shape(live.get(r.id), r),
          'notification jobs': (await f.store.listJobs({ requestId: r.id, kind: 'notify' })).length,
          'Slack message blocks and buttons': slack.blocks
            .map((b) => `${b.type}(${(b.elements ?? []).map((e) => e.action_id ?? '').join(' ')})`)
            .join(','),
          'e-mail subject and body shape': shape({ subject: email.subject, lines: email.text.split('\n').length }, r),
        };
      };
      const compared = new Set<string>();
      for (let i = 0; i < 4; i++) {
        const { real, check } = await pauseWithCheck(il);
        const [a, b] = [await features(real), await features(check)];
        // The reads see something: a real request is placed, notified and announced.
        assert.equal(a['placed under a call of the conversation on the timeline'], true);
        assert.equal(a['notification jobs'], 1);
        assert.notEqual(a['live event (approval.created)'], undefined);
        for (const k of Object.keys(a)) compared.add(k);
        assert.deepEqual(b, a, 'a reviewer can tell the planted check by one of these');
      }
      // The queue depth anyone can scrape counts the planted checks with the rest.
      const queue = await f.store.listRequests({ status: 'pending', roles: ['supervisor'], limit: 500 });
      assert.ok(queue.items.some((r) => r.planted));
      const metrics = await fetch(`${f.url}/metrics`).then((r) => r.text());
      const depth = Number(/interlock_queue_depth\{role="supervisor"\} (\d+)/.exec(metrics)?.[1]);
      assert.equal(depth, queue.items.length);
      compared.add('queue depth on /metrics against the queue');
      // Ids: a check's sorts before or after its real request's by chance (64 pairs; chance of a false alarm ~1e-4).
      let after = 0;
      for (let i = 0; i < 64; i++) {
        const { real, check } = await pauseWithCheck(il);
        if (check.id > real.id) after++;
      }
      assert.ok(after >= 16 && after <= 48, `a check sorted after its request ${after} times in 64`);
      compared.add('id order beside the real request');
      t.diagnostic(`compared: ${[...compared].join('; ')}`);
    });

    it('a batch approval of a planted check records the miss and runs nothing', async () => {
      const il = planting();
      const { real, check } = await pauseWithCheck(il);
      const items = [real, check].map((r) => ({ id: r.id, expectedVersion: r.version, actionHash: r.actionHash }));
      const r = await f.call<Answer>('/api/v1/batch/decision', 'alice', {
        body: { type: 'approve', items, digest: batchDigest(items) },
      });
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.results.map((x) => [x.ok, x.outcome]),
        [
          [true, 'authorized'],
          [true, 'authorized'],
        ],
      );
      await neverRuns(il, check);
      assert.equal((await il.callOutcome(real.threadId, REAL_CALL_ID))?.state, 'approved', 'the real one runs');
    });

    it('a timeout default of approve never runs it; a default of abort leaves the real thread alone', async () => {
      for (const onTimeout of ['approve', 'abort'] as const) {
        const il = planting(onTimeout);
        const { real, check } = await pauseWithCheck(il);
        await il.decide(
          real.id,
          { type: 'approve', expectedVersion: real.version, actionHash: real.actionHash },
          { id: 'sam', roles: ['supervisor'] },
        );
        f.clock.advance(31 * 60_000);
        const expired = await il.expireDue();
        assert.ok(expired.some((x) => x.id === check.id));
        await neverRuns(il, check);
        assert.notEqual((await f.store.getThread(real.threadId))?.status, 'aborted', `onTimeout ${onTimeout}`);
        assert.equal((await f.store.listJobs({ requestId: check.id, kind: 'resume' })).length, 0);
      }
    });

    it('only operators list planted checks', async () => {
      const refused = await f.call('/api/v1/planted', 'alice');
      assert.equal(refused.status, 403);
      const listed = await f.call<{ items: Array<{ id: string; plantedCheck?: { caught: boolean | null } }> }>(
        // All of them: the reviewer-playing test above leaves many undecided, newest first.
        '/api/v1/planted?limit=500',
        'olga',
      );
      assert.equal(listed.status, 200);
      assert.ok(listed.body.items.length >= 4);
      assert.ok(listed.body.items.some((i) => i.plantedCheck?.caught === true));
      assert.ok(listed.body.items.some((i) => i.plantedCheck?.caught === false));
    });
  });
}
