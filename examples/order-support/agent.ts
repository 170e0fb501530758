import { createAgent, type Agent, type Interlock, type LanguageModel } from '../../src/index.ts';
import { orderSupportTools, type ShopBackend } from './tools.ts';

export const ORDER_SUPPORT_SYSTEM = `You are the support agent of a small online shop. Look orders up before acting on them.
Refund at most the order total. When an action needs approval, tell the customer it is being reviewed.
When a refund is rejected, apologize and offer store credit or a partial refund instead.`;

/** The order-support agent. */
export function createOrderSupportAgent(o: { interlock: Interlock; model: LanguageModel; shop: ShopBackend }): Agent {
  return createAgent({
    name: 'order-support',
    version: '1.0.0',
    model: o.model,
    system: ORDER_SUPPORT_SYSTEM,
    tools: orderSupportTools(o.shop),
    interlock: o.interlock,
    maxIterations: 12,
  });
}
