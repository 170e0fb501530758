import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, createAgent, tool } from 'langchain';
import { MemorySaver } from '@langchain/langgraph';
import { fakeModel } from '@langchain/core/testing';
import { z } from 'zod';
import { allBackends } from '../../testing/backends.ts';
import { createInterlock, type Interlock } from '../../engine/index.ts';
import type { PolicyConfig, Reviewer } from '../../core/index.ts';
import {
  createLangChainRunner,
  interlockMiddleware,
  type InterlockInterrupt,
  type ResumableGraph,
} from '../../langchain.ts';

// Transfers over $800 are approved or rejected as proposed (no edit); others may be edited too.
const policy: PolicyConfig = {
  tools: {
    transfer: [
      { id: 'small', tier: 'auto', reason: 'small transfers run alone' },
      {
        id: 'large',
        tier: 'approve',
        role: 'ops',
        reason: 'over $800',
        decisions: ['approve', 'reject'],
        when: ({ args }) => Number(args.amount) > 800,
      },
      // Of two rules of one tier, the first that matches decides.
      { id: 'mid', tier: 'approve', role: 'ops', reason: 'over $500', when: ({ args }) => Number(args.amount) > 500 },
    ],
  },
};
const olga: Reviewer = { id: 'olga', roles: ['ops'] };

for (const backend of allBackends()) {
  describe(`LangChain's HITLRequest from interlockMiddleware on ${backend.name}`, () => {
    let il: Interlock;
    let runner: ReturnType<typeof createLangChainRunner>;
    let agent: ResumableGraph;
    const ran: number[] = [];
    let n = 0;

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy });
      const transfer = tool(async ({ amount }) => (ran.push(amount), `sent ${amount}`), {
        name: 'transfer',
        description: 'Send money',
        schema: z.object({ to: z.string(), amount: z.number() }),
      });
      const model = fakeModel();
      for (let i = 0; i < 80; i++)
        model.respond((messages) => {
          const last = messages.at(-1)!;
          if (last.getType() !== 'human') return new AIMessage('Done.');
          const words = (last.content as string).split(' ');
          const reuse = words[0] === 'same';
          const amounts = words.filter((w) => w !== 'same').map(Number);
          return new AIMessage({
            content: '',
            tool_calls: amounts.map((amount, k) => ({
              name: 'transfer',
              args: { to: `acct-${k}`, amount },
              // `same …` reuses one call id in every turn, as a scripted model or a proxy might.
              id: reuse ? 'call_same' : `c${++n}`,
            })),
          });
        });
      agent = createAgent({
        model,
        tools: [transfer],
        checkpointer: new MemorySaver(),
        middleware: [interlockMiddleware({ interlock: il, name: 'payments', tools: [transfer] })],
      });
      runner = createLangChainRunner({ name: 'payments', interlock: il, agent });
    });
    after(() => backend.destroy());

    const interruptsOf = async (t: string) =>
      (await agent.getState({ configurable: { thread_id: t } })).tasks.flatMap((x) => x.interrupts ?? []);

    it('a step whose calls all wait pauses once, with every action and what each rule allows', async () => {
      const t = `hitl-${backend.name}-1`;
      const r = await runner.invoke('600 900', { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      assert.equal(r.interrupts.length, 2);
      const all = await interruptsOf(t);
      assert.equal(all.length, 1, 'one interrupt for the step');
      const value = all[0]!.value as InterlockInterrupt;
      assert.deepEqual(
        value.actionRequests.map((a) => a.args.amount),
        [600, 900],
      );
      assert.deepEqual(
        value.reviewConfigs.map((c) => c.allowedDecisions),
        [
          ['approve', 'edit', 'reject'],
          ['approve', 'reject'],
        ],
      );
      assert.ok(value.reviewConfigs[0]!.argsSchema, 'the edit form has the tool schema');
      assert.deepEqual(
        value.interlock.requests.map((x) => x.requestId),
        r.interrupts.map((i) => i.id),
      );

      // One decided: it runs now; the other then waits in an interrupt of its own.
      const [a, b] = await Promise.all(r.interrupts.map((i) => il.getRequestOrThrow(i.id)));
      await il.decide(a!.id, { type: 'approve', expectedVersion: a!.version, actionHash: a!.actionHash }, olga);
      const mid = await runner.resume(t);
      assert.equal(mid.stopReason, 'interrupt');
      assert.deepEqual(ran, [600]);
      const rest = await interruptsOf(t);
      assert.equal(rest.length, 1);
      assert.deepEqual(
        (rest[0]!.value as InterlockInterrupt).interlock.requests.map((x) => x.requestId),
        [b!.id],
      );
      await assert.rejects(
        il.decide(
          b!.id,
          { type: 'edit', args: { to: 'acct-1', amount: 10 }, expectedVersion: b!.version, actionHash: b!.actionHash },
          olga,
        ),
        { code: 'decision_not_allowed' },
      );
      await il.decide(b!.id, { type: 'reject', expectedVersion: b!.version, actionHash: b!.actionHash }, olga);
      assert.equal((await runner.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(ran, [600]);
    });

    it('a step with a call that may run now does not wait for the gated one', async () => {
      const t = `hitl-${backend.name}-2`;
      ran.length = 0;
      const r = await runner.invoke('100 900', { threadId: t });
      assert.equal(r.stopReason, 'interrupt');
      assert.deepEqual(ran, [100]);
      assert.equal((await interruptsOf(t)).length, 1);
    });

    it('a call id an earlier turn used is refused visibly, never answered with that call’s outcome', async () => {
      const t = `hitl-${backend.name}-3`;
      ran.length = 0;
      const first = await runner.invoke('same 900', { threadId: t });
      const req = await il.getRequestOrThrow(first.interrupts[0]!.id);
      await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, olga);
      assert.equal((await runner.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(ran, [900]);
      // The same id and arguments in a later turn: not the same call, and not run again.
      const again = await runner.invoke('same 900', { threadId: t });
      assert.equal(again.stopReason, 'end_turn');
      assert.deepEqual(ran, [900]);
      const messages = (again.result as { messages: Array<{ getType(): string; content: unknown }> }).messages;
      const answer = messages.filter((m) => m.getType() === 'tool').at(-1)!;
      assert.match(String(answer.content), /already used the call id call_same; this call did not run/);
      assert.equal((await il.listRequests({ threadId: t })).items.length, 1, 'no request for the reused id');
    });
  });
}
