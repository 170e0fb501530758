import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { fetchJson } from '../testing/http.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import type { Store } from '../store/types.ts';
import { createApp, createReviewer, serve, type RunningServer } from '../server/index.ts';
import { createWebUi } from '../web/index.ts';
import { runCli } from '../../test/support/cli-helpers.ts';
import { createThreadsAdapter } from './threads.ts';

const CARD = '4111 1111 1111 1111';
const PHONE = '+1 415 555 0100';
const EMAIL = 'jane.doe@example.com';
const CUSTOMER = `My card is ${CARD}, call me at ${PHONE} or write to ${EMAIL}`;

/** Personal data of the customer message, in any of the forms it was written. */
function leaks(text: string): string[] {
  return [CARD, PHONE, EMAIL].filter((x) => text.includes(x));
}

for (const backend of allBackends()) {
  describe(`personal data on every reviewer surface on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let server: RunningServer;
    let threadId: string;
    const tokens: Record<'operator' | 'supervisor' | 'logistics', string> = {
      operator: '',
      supervisor: '',
      logistics: '',
    };
    const ids: Record<string, string> = {};
    const get = (path: string, who: keyof typeof tokens) =>
      fetchJson<Record<string, unknown>>(server.url + path, { token: tokens[who] });
    const rawViews = async () => (await store.listAudit({ threadId })).filter((e) => e.type === 'raw_viewed');

    before(async () => {
      store = await backend.create();
      il = createInterlock({
        store,
        policy: {
          tools: {
            issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'refunds need a supervisor' }],
          },
        },
      });
      for (const role of Object.keys(tokens) as Array<keyof typeof tokens>) {
        const { reviewer, token } = await createReviewer(store, { name: `${role} reviewer`, roles: [role] });
        tokens[role] = token;
        ids[role] = reviewer.id;
      }
      const call = { tool: 'issue_refund', args: { orderId: 'ORD-1', amount: 900 } };
      threadId = `thr-pii-${backend.name}`;
      await il.pause({
        thread: { id: threadId, agent: 'support', agentVersion: '1' },
        checkpoint: {
          newMessages: [
            { role: 'user', content: [{ type: 'text', text: CUSTOMER }] },
            {
              role: 'assistant',
              content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'issue_refund', input: call.args }],
            },
          ],
          state: {},
          schemaVersion: 1,
        },
        items: [{ call, verdict: await il.gate(call), toolCallId: 'c1', evidence: { customerMessage: CUSTOMER } }],
        proposer: 'agent:support',
      });
      const app = createApp({
        interlock: il,
        threads: createThreadsAdapter(il, new Map()),
        ui: createWebUi(),
        logger: { error: () => undefined },
      });
      server = await serve({ app, port: 0 });
    });
    after(async () => {
      await server.close();
      await backend.destroy();
    });

    it('masks the thread over the API and in the timeline, as on the card', async () => {
      const thread = await get(`/api/v1/threads/${threadId}`, 'supervisor');
      assert.equal(thread.status, 200, JSON.stringify(thread.body));
      const text = JSON.stringify(thread.body);
      assert.deepEqual(leaks(text), []);
      assert.match(text, /\[card \*\*\*\*1111\]/);
      assert.match(text, /"amount":900/, 'the tool call keeps its exact arguments');
      const timeline = await get(`/api/v1/threads/${threadId}/timeline`, 'supervisor');
      assert.equal(timeline.status, 200);
      assert.deepEqual(leaks(JSON.stringify(timeline.body.messages)), []);
      const operator = await get(`/api/v1/threads/${threadId}`, 'operator');
      assert.deepEqual(leaks(JSON.stringify(operator.body)), [], 'operators too, unless they ask');
    });

    it('shows operators the stored text with raw=1, and audits who read it', async () => {
      const refused = await get(`/api/v1/threads/${threadId}?raw=1`, 'supervisor');
      assert.equal(refused.status, 403);
      assert.equal((refused.body.error as { code: string }).code, 'forbidden_role');
      const bad = await get(`/api/v1/threads/${threadId}?raw=yes`, 'operator');
      assert.equal(bad.status, 400);
      assert.deepEqual(await rawViews(), [], 'refusals change nothing');

      const raw = await get(`/api/v1/threads/${threadId}?raw=1`, 'operator');
      assert.equal(raw.status, 200);
      assert.deepEqual(leaks(JSON.stringify(raw.body)).sort(), [CARD, EMAIL, PHONE].sort());
      const seen = await rawViews();
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.actor, `reviewer:${ids.operator}`);
      assert.equal(seen[0]!.payload.surface, 'api');
    });

    it('masks `interlock threads show`; --raw shows the stored text and is audited', async () => {
      const env = backend.env();
      const shown = await runCli(['threads', 'show', threadId], env);
      assert.equal(shown.code, 0, shown.err);
      assert.deepEqual(leaks(shown.out), []);
      assert.match(shown.out, /\[card \*\*\*\*1111\]/);
      const json = await runCli(['threads', 'show', threadId, '--json'], env);
      assert.deepEqual(leaks(json.out), []);
      const before = (await rawViews()).length;
      const raw = await runCli(['threads', 'show', threadId, '--raw'], env);
      assert.equal(raw.code, 0, raw.err);
      assert.ok(raw.out.includes(CARD));
      const seen = await rawViews();
      assert.equal(seen.length, before + 1);
      assert.equal(seen.at(-1)!.payload.surface, 'cli');
    });
  });
}
