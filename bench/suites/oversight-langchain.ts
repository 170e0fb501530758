/**
 * LangChain in "Cost of oversight, per adapter": `createAgent` with LangGraph's SqliteSaver or
 * PostgresSaver and `humanInTheLoopMiddleware` (refunds over $500 interrupt), against the same agent,
 * same checkpointer, with `interlockMiddleware` in the middleware's place and Interlock's store on the
 * same backend. Both use LangChain's own offline model (`fakeModel`, as test/support/langchain-model.ts does).
 */
import { AIMessage, createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createLangChainRunner, interlockMiddleware } from '../../src/langchain.ts';
import { lastToolContents } from '../../test/support/langchain-model.ts';
import { BENCH_DATABASE_URL, type Scratch } from '../lib/backends.ts';
import type { LangGraphPeer } from '../peers/langgraph.ts';
import { Command, fakeModel, z } from '../lib/root-packages.ts';
import {
  expect,
  interlockSide,
  MODEL_TURNS,
  type OversightAgent,
  type OversightBackend,
  oversightInterlock,
  pairOf,
} from '../lib/oversight-agent.ts';

/**
 * The order-support tools of test/support/langchain-model.ts, without reading Interlock's key: the
 * framework-only agent has no Interlock. Both sides run these, so the tools cost the same.
 */
function tools(count: { runs: number }) {
  return [
    tool(async ({ orderId }) => `order ${orderId}: delivered`, {
      name: 'lookup_order',
      description: 'Look up an order',
      schema: z.object({ orderId: z.string() }),
    }),
    tool(
      async (args) => {
        count.runs++;
        return `refunded ${args.amount} on ${args.orderId}`;
      },
      {
        name: 'issue_refund',
        description: 'Refund an order',
        schema: z.strictObject({ orderId: z.string(), amount: z.number().positive() }),
      },
    ),
  ];
}

/** A new checkpointer of LangGraph's own on `backend` (SqliteSaver with synchronous=FULL, as Interlock's store). */
async function saver(
  lg: LangGraphPeer,
  scratch: Scratch,
  backend: OversightBackend,
  name: string,
): Promise<{ saver: BaseCheckpointSaver; close: () => Promise<void> }> {
  if (backend === 'sqlite') {
    const { saver, db } = await lg.sqliteSaver(scratch.file(name), 'FULL');
    return { saver: saver as unknown as BaseCheckpointSaver, close: async () => db.close() };
  }
  const pg = await lg.postgresSaver(BENCH_DATABASE_URL, scratch.schema(name.replace(/\W/g, '_')), 16);
  return { saver: pg as unknown as BaseCheckpointSaver, close: () => pg.end() };
}

/**
 * test/support/langchain-model.ts's `supportModel` (LangChain's own `fakeModel`, answering from the
 * conversation), with a call id of its own per turn: a thread runs several turns, and a call id
 * repeated in a later turn is, to Interlock, the same call — already executed, so not run again.
 */
function supportModel(turns: number) {
  const model = fakeModel();
  for (let i = 0; i < turns; i++)
    model.respond((messages) => {
      const last = messages.at(-1)!;
      if (last.getType() === 'human' && typeof last.content === 'string') {
        const [verb, orderId = 'A-1', amount = '0'] = last.content.trim().split(/\s+/);
        if (verb === 'refund')
          return new AIMessage({
            content: '',
            tool_calls: [{ name: 'issue_refund', args: { orderId, amount: Number(amount) }, id: `call_${orderId}` }],
          });
      }
      return new AIMessage(`Done: ${JSON.stringify(lastToolContents(messages))}`);
    });
  return model;
}

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
const endedWithText = (r: { messages?: unknown[] }) => (r.messages?.at(-1) as AIMessage | undefined)?.text;

async function own(lg: LangGraphPeer, scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const cp = await saver(lg, scratch, backend, 'lc-own');
  const count = { runs: 0 };
  const agent = createAgent({
    model: supportModel(MODEL_TURNS),
    tools: tools(count),
    checkpointer: cp.saver,
    middleware: [
      humanInTheLoopMiddleware({
        interruptOn: {
          issue_refund: {
            allowedDecisions: ['approve', 'reject'],
            when: (req) => Number((req.toolCall.args as { amount?: unknown }).amount) > 500,
          },
        },
      }),
    ],
  });
  return {
    label: `LangChain · humanInTheLoopMiddleware + ${backend === 'sqlite' ? 'SqliteSaver' : 'PostgresSaver'}`,
    async auto(threadId, input) {
      const r = await agent.invoke({ messages: [{ role: 'user', content: input }] }, config(threadId));
      expect(!r.__interrupt__?.length && !!endedWithText(r), `LangChain auto turn on ${threadId} paused`);
    },
    async cycle(threadId, input) {
      const paused = await agent.invoke({ messages: [{ role: 'user', content: input }] }, config(threadId));
      expect(!!paused.__interrupt__?.length, `LangChain gated turn on ${threadId} did not pause`);
      const done = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config(threadId));
      expect(!done.__interrupt__?.length && !!endedWithText(done), `LangChain resume on ${threadId} did not finish`);
    },
    runs: () => count.runs,
    close: cp.close,
  };
}

async function withInterlock(lg: LangGraphPeer, scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const cp = await saver(lg, scratch, backend, 'lc-il-saver');
  const { il, store } = await oversightInterlock(scratch, backend, 'lc-interlock');
  const count = { runs: 0 };
  const runner = createLangChainRunner({
    name: 'support-lc',
    interlock: il,
    agent: createAgent({
      model: supportModel(MODEL_TURNS),
      tools: tools(count),
      checkpointer: cp.saver,
      middleware: [interlockMiddleware({ interlock: il, name: 'support-lc' })],
    }),
  });
  return interlockSide({
    label: `LangChain · interlockMiddleware + ${backend === 'sqlite' ? 'SqliteSaver' : 'PostgresSaver'}`,
    framework: 'LangChain',
    il,
    store,
    agent: runner,
    runs: () => count.runs,
    close: cp.close,
  });
}

/** The LangChain pair on `backend`. */
export const langChainPair = pairOf('LangChain', own, withInterlock);
