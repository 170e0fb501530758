/**
 * The AI SDK in "Cost of oversight, per adapter": `generateText` with the tool's own `needsApproval`
 * (refunds over $500) and the thread's messages stored by the application in a table of the same
 * database (bench/lib/app-store.ts), against `createAiSdkAgent` on Interlock's store. Both use the
 * AI SDK's own offline model (`MockLanguageModelV4`, test/support/ai-sdk-model.ts).
 */
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { createAiSdkAgent } from '../../src/ai-sdk.ts';
import { plan, supportModel, supportTools, type RefundLog } from '../../test/support/ai-sdk-model.ts';
import { postgresAppStore, sqliteAppStore } from '../lib/app-store.ts';
import type { Scratch } from '../lib/backends.ts';
import {
  expect,
  interlockSide,
  type OversightAgent,
  type OversightBackend,
  oversightInterlock,
  pairOf,
  perTurnIds,
} from '../lib/oversight-agent.ts';

/** test/support's plan with a call id of its own per turn. */
const uniquePlan = perTurnIds(plan);

async function own(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const app = backend === 'sqlite' ? sqliteAppStore(scratch, 'ai-own') : await postgresAppStore(scratch, 'ai_own');
  const log: RefundLog = { runs: [] };
  const base = supportTools(log);
  const tools = {
    ...base,
    issue_refund: { ...base.issue_refund, needsApproval: ({ amount }: { amount: number }) => amount > 500 },
  };
  const model = supportModel(uniquePlan);
  const generate = (messages: ModelMessage[]) => generateText({ model, tools, stopWhen: stepCountIs(5), messages });
  /** A user message on the thread: the app loads its messages, generates, stores the new ones. */
  async function turn(threadId: string, input: string) {
    const history = (await app.load(threadId)) as ModelMessage[];
    const user: ModelMessage = { role: 'user', content: input };
    const r = await generate([...history, user]);
    await app.save(threadId, history.length, [user, ...r.responseMessages]);
    return r;
  }
  return {
    label: "AI SDK · needsApproval + the app's messages table",
    async auto(threadId, input) {
      const r = await turn(threadId, input);
      expect(r.finishReason === 'stop', `AI SDK auto turn on ${threadId} ended ${r.finishReason}`);
    },
    async cycle(threadId, input) {
      const paused = await turn(threadId, input);
      const asks = paused.content.filter((p) => p.type === 'tool-approval-request');
      expect(asks.length === 1, `AI SDK gated turn on ${threadId} did not ask for approval`);
      // The reviewer's approval, stored as the SDK's approval response (what the app's approve handler does).
      const held = (await app.load(threadId)).length;
      const answer: ModelMessage = {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: asks[0]!.approvalId, approved: true }],
      };
      await app.save(threadId, held, [answer]);
      // The resume: load the thread, let the SDK run the approved call and the model answer, store what it
      // added (`responseMessages`: the approved call's result too, which `response.messages` leaves out).
      const history = (await app.load(threadId)) as ModelMessage[];
      const done = await generate(history);
      await app.save(threadId, history.length, done.responseMessages);
      expect(done.finishReason === 'stop', `AI SDK resume on ${threadId} ended ${done.finishReason}`);
    },
    runs: () => log.runs.length,
    commits: () => app.commits(),
    close: () => app.close(),
  };
}

async function withInterlock(scratch: Scratch, backend: OversightBackend): Promise<OversightAgent> {
  const { il, store } = await oversightInterlock(scratch, backend, 'ai-interlock');
  const log: RefundLog = { runs: [] };
  const model = supportModel(uniquePlan);
  const agent = createAiSdkAgent({
    name: 'support',
    interlock: il,
    tools: supportTools(log),
    generate: (i) => generateText({ model, stopWhen: stepCountIs(5), ...i }),
  });
  return interlockSide({
    label: 'AI SDK · createAiSdkAgent',
    framework: 'AI SDK',
    il,
    store,
    agent,
    runs: () => log.runs.length,
  });
}

/** The AI SDK pair on `backend`. */
export const aiSdkPair = pairOf('AI SDK', own, withInterlock);
