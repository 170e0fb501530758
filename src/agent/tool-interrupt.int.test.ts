import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { createAgent, tool } from './index.ts';
import type { Store } from '../store/types.ts';
import type { Reviewer } from '../core/index.ts';

const leo: Reviewer = { id: 'leo', roles: ['logistics'] };

/** A model that calls `change_address` once, then reports the tool's result. */
const model = () =>
  scriptedModel((ctx) =>
    ctx.lastToolResults.length > 0
      ? { text: `result: ${JSON.stringify(ctx.lastToolResults[0]!.output)}` }
      : { toolCalls: [{ name: 'change_address', args: { orderId: 'ORD-1', address: '1 Main St' } }] },
  );

for (const backend of allBackends()) {
  describe(`a question inside a tool cannot be swallowed, on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let n = 0;
    before(async () => {
      store = await backend.create();
      il = createInterlock({
        store,
        policy: { tools: { change_address: [{ id: 'auto', tier: 'auto', reason: 'asks inside' }] } },
      });
    });
    after(() => backend.destroy());

    for (const style of ['returns a fallback', 'throws its own error'] as const) {
      it(`a tool that catches the pause and ${style} still pauses, and runs once after the answer`, async () => {
        const effects: string[] = [];
        let bodies = 0;
        const changeAddress = tool({
          name: 'change_address',
          description: 'Change the delivery address after a person confirms it',
          schema: z.object({ orderId: z.string(), address: z.string() }),
          execute: async (args, ctx) => {
            bodies++;
            try {
              const answer = ctx.interrupt({
                name: 'confirm_address',
                reason: `Deliver to ${args.address}?`,
                role: 'logistics',
              });
              if (answer.type !== 'approve') return { changed: false };
              effects.push(args.address);
              return { changed: true };
            } catch (err) {
              // The trap: a catch-all that turns every failure into a result, or into its own error.
              if (style === 'returns a fallback') return { changed: false, error: String(err) };
              throw new Error('address service unavailable');
            }
          },
        });
        const agent = createAgent({
          name: 'shop',
          version: '1',
          model: model(),
          system: 's',
          tools: [changeAddress],
          interlock: il,
        });
        const threadId = `swallow-${backend.name}-${++n}`;
        const r = await agent.invoke('move my delivery', { threadId });
        assert.equal(r.stopReason, 'interrupt', 'the thread pauses on the question');
        assert.equal(r.interrupts[0]?.name, 'confirm_address');
        assert.equal(effects.length, 0);
        assert.deepEqual(
          await store.listExecutionsForRequest(r.interrupts[0].id),
          [],
          'the fallback was not recorded as a result',
        );
        const audit = await store.listAudit({ threadId });
        assert.ok(
          !audit.some((e) => e.type === 'auto_executed' || e.type === 'failed'),
          'nothing recorded as run or failed',
        );

        const end = await agent.invoke(null, {
          threadId,
          responses: { [r.interrupts[0].id]: { type: 'approve' } },
          reviewer: leo,
        });
        assert.equal(end.stopReason, 'end_turn');
        assert.match(end.text, /"changed":true/);
        assert.deepEqual(effects, ['1 Main St'], 'the side effect ran once, after the answer');
        assert.equal(bodies, 2, 'the tool ran again from the start with the answer');
      });
    }
  });
}
