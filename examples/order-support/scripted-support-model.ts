import { scriptedModel, type ScriptContext, type ScriptStep, type ScriptedModel } from '../../src/testing/index.ts';

type Json = Record<string, unknown>;
const money = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

/** What the customer asked for, read from their last message. */
function intent(text: string) {
  const order = /\bORD-\d+\b/i.exec(text)?.[0]?.toUpperCase();
  const amount = /\$\s?(\d+(?:\.\d+)?)/.exec(text)?.[1];
  if (/refund/i.test(text) && order)
    return {
      kind: 'refund' as const,
      order,
      amount: amount ? Number(amount) : undefined,
      partial: /partial/i.test(text),
    };
  const sub = /\bSUB-\d+\b/i.exec(text)?.[0]?.toUpperCase();
  if (/cancel/i.test(text) && sub) return { kind: 'cancel' as const, sub };
  const addr = /address of (?:order )?(ORD-\d+) to (.+?)\.?$/i.exec(text);
  if (addr) return { kind: 'address' as const, order: addr[1]!.toUpperCase(), address: addr[2]! };
  if (/delete/i.test(text)) return { kind: 'delete' as const };
  return { kind: 'chat' as const };
}

function reply(ctx: ScriptContext): ScriptStep {
  const want = intent(ctx.lastUserText);
  const results = ctx.lastToolResults;
  if (results.length === 0) {
    switch (want.kind) {
      case 'refund':
        return {
          text: `Let me look up order ${want.order}.`,
          toolCalls: [{ name: 'look_up_order', args: { orderId: want.order } }],
        };
      case 'cancel':
        return {
          text: `I'll cancel subscription ${want.sub} for you.`,
          toolCalls: [{ name: 'cancel_subscription', args: { subscriptionId: want.sub } }],
        };
      case 'address':
        return {
          text: `I'll update the delivery address of ${want.order}.`,
          toolCalls: [{ name: 'change_shipped_address', args: { orderId: want.order, address: want.address } }],
        };
      case 'delete':
        return {
          text: 'Let me see what I can do.',
          toolCalls: [{ name: 'delete_customer', args: { customerId: 'test-001' } }],
        };
      default:
        return {
          text: 'Hi! I can look up orders, issue refunds, cancel subscriptions and update delivery addresses. What do you need?',
        };
    }
  }
  const r = results[0]!;
  const out = r.output;
  if (r.isError) {
    if (/Blocked by policy/.test(String(out)))
      return { text: "I'm sorry, that's not something I can do here. A member of our team can help you by email." };
    return {
      text: `Something went wrong: ${String(out).replace(/^The tool failed: /, '')}. Could you check the details?`,
    };
  }
  if (typeof out === 'string') {
    if (/rejected/i.test(out)) {
      const why = /Reviewer's message: (.*?)(?: Offer the|$)/.exec(out)?.[1];
      return {
        text: `I'm sorry, I couldn't get that approved${why ? ` (${why.trim()})` : ''}. I can offer you store credit for the same amount instead, or a partial refund. Would either of those work?`,
      };
    }
    if (/deadline/i.test(out))
      return { text: "I'm sorry, this is taking longer than expected. A specialist will follow up with you by email." };
    return { text: `An update from our team: ${out}` };
  }
  const o = (out ?? {}) as Json;
  if (r.toolName === 'look_up_order' && want.kind === 'refund') {
    const amount = want.amount ?? Number(o.amount) - Number(o.refunded ?? 0);
    return {
      text: `Order ${want.order} (${money(Number(o.amount))}, ${String(o.status)}). I'll refund ${money(amount)}.`,
      toolCalls: [{ name: 'issue_refund', args: { orderId: want.order, customerId: String(o.customerId), amount } }],
    };
  }
  if (r.toolName === 'issue_refund')
    return {
      text: `Done: I've refunded ${money(Number(o.amount))} for order ${String(o.orderId)} (reference ${String(o.refundId)}). It should appear in 3-5 business days.`,
    };
  if (r.toolName === 'cancel_subscription')
    return {
      text: `Your subscription ${String(o.subscriptionId)} is cancelled; you keep access until the end of the billing period.`,
    };
  if (r.toolName === 'change_shipped_address')
    return { text: `The delivery address of ${String(o.orderId)} is now ${String(o.address)}.` };
  return { text: 'Done.' };
}

/**
 * A deterministic stand-in for a language model that understands the
 * example's requests ("I need a full refund for order ORD-999", "partial
 * refund of $40 for order ORD-100", "cancel my subscription SUB-7", "change
 * the delivery address of order ORD-78291 to 123 New St"), so the example runs
 * offline and its tests are exact.
 */
export function orderSupportScriptedModel(): ScriptedModel {
  // The demo service runs for days: recorded prompts would keep every conversation in memory.
  return scriptedModel(reply, { recordPrompts: false });
}
