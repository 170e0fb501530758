import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { CONFORMANCE_POLICY, conformanceWorld, type ConformanceEffect } from '../testing/index.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import type { RunnerResult, ThreadRunner } from '../engine/index.ts';
import { nativeDriver } from '../../test/support/conformance/native.ts';
import { langChainDriver } from '../../test/support/conformance/langchain.ts';
import { aiSdkDriver } from '../../test/support/conformance/ai-sdk.ts';
import { openAIAgentsDriver } from '../../test/support/conformance/openai-agents.ts';

// A model's call ids are data: a self-hosted model, a template or a proxy may repeat them.
for (const backend of allBackends()) {
  describe(`the native loop and repeated call ids on ${backend.name}`, () => {
    let il: Interlock;
    let agent: ThreadRunner;
    const effects: ConformanceEffect[] = [];

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy: CONFORMANCE_POLICY });
      agent = await nativeDriver.create(conformanceWorld(il, effects, new Map()));
    });
    after(() => backend.destroy());

    it('two calls under one id in one step are both refused, visibly and audited; neither gets the other’s result', async () => {
      const t = `ids-${backend.name}-1`;
      await agent.invoke(`lookup ${t} @same; refund ${t} 100 @same`, { threadId: t });
      assert.deepEqual(
        effects.filter((e) => e.args.orderId === t),
        [],
      );
      const results = JSON.stringify(await il.threads.listMessages(t));
      assert.equal(results.split('used the same call id').length - 1, 2, 'each call says why it did not run');
      assert.doesNotMatch(results, /"total":900/, 'no call was handed the lookup’s result');
      const refused = (await il.audit.listAudit({ threadId: t })).filter((e) => e.type === 'refused');
      assert.deepEqual(
        refused.map((e) => e.payload.code),
        ['duplicate_call_id', 'duplicate_call_id'],
      );
    });

    it('a call id reused in a later turn is a new call: it runs, it is not answered with the earlier result', async () => {
      const t = `ids-${backend.name}-2`;
      await agent.invoke(`refund ${t} 100 @c1`, { threadId: t });
      await agent.invoke(`refund ${t} 200 @c1`, { threadId: t });
      assert.deepEqual(
        effects.filter((e) => e.args.orderId === t).map((e) => e.args.amount),
        [100, 200],
      );
    });
  });
}

// The same through LangChain, whose tools are keyed by the call id LangGraph checkpointed.
for (const backend of allBackends()) {
  describe(`LangChain and a call id reused in a later turn, on ${backend.name}`, () => {
    let il: Interlock;
    let agent: ThreadRunner;
    const effects: ConformanceEffect[] = [];

    before(async () => {
      il = createInterlock({ store: await backend.create(), policy: CONFORMANCE_POLICY });
      agent = await langChainDriver.create(conformanceWorld(il, effects, new Map()));
    });
    after(() => backend.destroy());

    it('a later call under a reused id is refused visibly, never handed the earlier call’s result', async () => {
      const t = `lc-ids-${backend.name}`;
      await agent.invoke(`refund ${t} 100 @c1`, { threadId: t });
      // The model is told, in the tool's answer, that the call did not run and why; the run goes on.
      const r = (await agent.invoke(`refund ${t} 200 @c1`, { threadId: t })) as RunnerResult & { result?: unknown };
      assert.equal(r.stopReason, 'end_turn');
      const messages = (r.result as { messages: Array<{ getType(): string; content: unknown }> }).messages;
      assert.match(
        String(messages.filter((m) => m.getType() === 'tool').at(-1)!.content),
        /already used the call id c1; this call did not run/,
      );
      assert.deepEqual(
        effects.filter((e) => e.args.orderId === t).map((e) => e.args.amount),
        [100],
      );
      const audit = await il.audit.listAudit({ threadId: t });
      assert.equal(audit.filter((e) => e.type === 'auto_executed').length, 1);
    });
  });
}

// The adapters that save a run only when it ends key an automatic call by the turn it started from:
// the messages saved before it and its input.
for (const backend of allBackends()) {
  describe(`a run that saved nothing, then another message, on ${backend.name}`, () => {
    after(() => backend.destroy());

    for (const driver of [aiSdkDriver, openAIAgentsDriver])
      it(`${driver.name}: the same action under a new message runs again; it is not the failed run's result`, async () => {
        const effects: ConformanceEffect[] = [];
        const il = createInterlock({ store: await backend.create(), policy: CONFORMANCE_POLICY });
        const world = conformanceWorld(il, effects, new Map());
        const agent = await driver.create(world);
        const t = `turns-${driver.name}-${backend.name}`;
        world.crashAfterTools();
        await assert.rejects(agent.invoke(`refund ${t} 120`, { threadId: t }));
        await agent.invoke(`refund ${t} 120 @again`, { threadId: t });
        assert.deepEqual(
          effects.map((e) => e.args.amount),
          [120, 120],
        );
      });
  });
}
