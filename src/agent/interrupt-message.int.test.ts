import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createInterlock } from '../engine/index.ts';
import { allBackends } from '../testing/backends.ts';
import { scriptedModel } from '../testing/scripted-model.ts';
import type { Store } from '../store/types.ts';
import { createAgent } from './agent.ts';
import { tool } from './tool.ts';

// The sentence an application shows its user when the agent pauses names a person, not a role identifier.
for (const backend of allBackends()) {
  describe(`the interrupt message on ${backend.name}`, () => {
    let store: Store;
    before(async () => {
      store = await backend.create();
    });
    after(() => backend.destroy());

    const run = async (role: string, approvals: number, threadId: string) => {
      const interlock = createInterlock({
        store,
        policy: {
          tools: { pay_invoice: [{ id: 'pay', tier: 'approve', role, approvals, reason: 'payments need a person' }] },
        },
      });
      const payInvoice = tool({
        name: 'pay_invoice',
        description: 'Pay an invoice',
        schema: z.object({ invoice: z.string() }),
        execute: async () => ({ paid: true }),
      });
      const model = scriptedModel([
        { text: 'Paying it.', toolCalls: [{ name: 'pay_invoice', args: { invoice: 'INV-1' } }] },
        { text: 'Paid.' },
      ]);
      const agent = createAgent({
        name: 'ap',
        version: '1.0.0',
        model,
        system: 'You pay invoices.',
        tools: [payInvoice],
        interlock,
      });
      const r = await agent.invoke('pay INV-1', { threadId });
      assert.equal(r.stopReason, 'interrupt');
      return r.interrupts[0]?.message ?? '';
    };

    it('says "a finance reviewer", not "a finance"', async () => {
      assert.equal(
        await run('finance', 1, `msg-${backend.name}-1`),
        "This needs approval from a finance reviewer before I can go ahead; I'll continue as soon as it's decided.",
      );
    });
    it('says "2 supervisors" for a quorum', async () => {
      assert.match(await run('supervisor', 2, `msg-${backend.name}-2`), /approval from 2 supervisors before/);
    });
  });
}
