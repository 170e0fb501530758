/**
 * The example agent on the real provider clients (@ai-sdk/openai, @ai-sdk/anthropic), against local
 * servers that answer in each provider's protocol: the documented OPENAI_API_KEY / ANTHROPIC_API_KEY
 * paths (and OPENAI_BASE_URL / ANTHROPIC_BASE_URL) pause on a $850 refund, resume after a decision,
 * and send the tool's result — or the reviewer's rejection — back to the model.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends, startFakeHttpServer } from '../../src/testing/index.ts';
import type { ReceivedHttpRequest } from '../../src/testing/fake-http.ts';
import { createInterlock, type Interlock, type Reviewer } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { createOrderSupportAgent } from './agent.ts';
import { pickModel } from './model.ts';
import { orderSupportPolicy } from './policy.ts';
import { createShopBackend } from './tools.ts';

const supervisor: Reviewer = { id: 'sam', roles: ['supervisor'] };
const REFUND = { orderId: 'ORD-999', customerId: 'test-001', amount: 850 };

type Body = Record<string, unknown>;
/** The text of everything the client sent, to look for tool results in either protocol. */
const sent = (r: ReceivedHttpRequest) => JSON.stringify(r.json());

/** OpenAI Responses API: a function call first; once a function output came back, a closing message. */
function openAiAnswer(r: ReceivedHttpRequest): { status: number; body: string } {
  const done = /function_call_output/.test(sent(r));
  const output = done
    ? [
        {
          type: 'message',
          role: 'assistant',
          id: 'msg_2',
          content: [
            {
              type: 'output_text',
              text: `Done: ${sent(r).includes('RF-') ? 'refunded' : 'not refunded'}.`,
              annotations: [],
            },
          ],
        },
      ]
    : [
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_refund_1',
          name: 'issue_refund',
          arguments: JSON.stringify(REFUND),
        },
      ];
  return {
    status: 200,
    body: JSON.stringify({
      id: done ? 'resp_2' : 'resp_1',
      created_at: 1_700_000_000,
      model: 'gpt-4o-mini',
      output,
      usage: { input_tokens: 120, output_tokens: 12 },
    }),
  };
}

/** Anthropic Messages API: a tool use first; once a tool result came back, a closing text. */
function anthropicAnswer(r: ReceivedHttpRequest): { status: number; body: string } {
  const done = /tool_result/.test(sent(r));
  const content = done
    ? [{ type: 'text', text: `Done: ${sent(r).includes('RF-') ? 'refunded' : 'not refunded'}.` }]
    : [{ type: 'tool_use', id: 'toolu_1', name: 'issue_refund', input: REFUND }];
  return {
    status: 200,
    body: JSON.stringify({
      id: done ? 'msg_2' : 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-5-haiku-latest',
      content,
      stop_reason: done ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 12 },
    }),
  };
}

const PROVIDERS = [
  {
    name: 'OpenAI',
    env: (url: string) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1` }),
    answer: openAiAnswer,
    path: '/v1/responses',
    auth: (r: ReceivedHttpRequest) => r.headers.authorization === 'Bearer sk-test',
  },
  {
    name: 'Anthropic',
    env: (url: string) => ({ ANTHROPIC_API_KEY: 'ak-test', ANTHROPIC_BASE_URL: `${url}/v1` }),
    answer: anthropicAnswer,
    path: '/v1/messages',
    auth: (r: ReceivedHttpRequest) => r.headers['x-api-key'] === 'ak-test',
  },
] as const;

for (const backend of allBackends()) {
  for (const p of PROVIDERS) {
    describe(`the example agent on the real ${p.name} client, on ${backend.name}`, () => {
      let store: Store;
      let il: Interlock;
      let n = 0;
      before(async () => {
        store = await backend.create();
        il = createInterlock({ store, policy: orderSupportPolicy });
      });
      after(() => backend.destroy());

      for (const verdict of ['approve', 'reject'] as const) {
        it(`pauses on the model's $850 refund; after ${verdict === 'approve' ? 'approval the tool result' : "rejection the reviewer's message"} goes back to the model`, async () => {
          const server = await startFakeHttpServer((r) => p.answer(r));
          try {
            const { model, description } = await pickModel(p.env(server.url));
            assert.match(description, new RegExp(`${p.name} .* at ${server.url}`));
            const shop = createShopBackend();
            const agent = createOrderSupportAgent({ interlock: il, model, shop });
            const threadId = `prov-${p.name}-${backend.name}-${++n}`;
            const paused = await agent.invoke('I need a full refund for order ORD-999', { threadId });
            assert.equal(paused.stopReason, 'interrupt');
            assert.deepEqual(paused.interrupts[0]?.args, REFUND);
            assert.equal(server.received.length, 1);
            const first = server.received[0]!;
            assert.equal(first.path, p.path);
            assert.ok(p.auth(first), 'the API key is sent as the provider expects');
            assert.ok(((first.json() as Body).tools as unknown[]).length > 0, 'the tools are declared to the model');

            const decision =
              verdict === 'approve'
                ? { type: 'approve' as const }
                : { type: 'reject' as const, message: 'outside the 30-day window' };
            const done = await agent.invoke(null, {
              threadId,
              responses: { [paused.interrupts[0].id]: decision },
              reviewer: supervisor,
            });
            assert.equal(done.stopReason, 'end_turn');
            assert.equal(
              server.received.length,
              2,
              'the model is called once more, not again for the step that proposed the refund',
            );
            const second = sent(server.received[1]!);
            if (verdict === 'approve') {
              assert.match(done.text, /refunded/);
              assert.equal(shop.refunds.length, 1);
              assert.match(second, /RF-/, 'the refund id goes back to the model');
            } else {
              assert.equal(shop.refunds.length, 0);
              assert.match(second, /outside the 30-day window/, "the reviewer's message goes back to the model");
            }
          } finally {
            await server.close();
          }
        });
      }
    });
  }
}
