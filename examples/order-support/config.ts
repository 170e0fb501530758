// The bundled example, served by `npm start` when there is no interlock.config.ts.
import { defineConfig } from '../../src/service/index.ts';
import { createOrderSupportAgent } from './agent.ts';
import { pickModel } from './model.ts';
import { ORDER_SUPPORT_ROLES, orderSupportPolicy } from './policy.ts';
import { createShopBackend } from './tools.ts';

const shop = createShopBackend();
const { model, description } = await pickModel();

export default defineConfig({
  policy: orderSupportPolicy,
  agents: ({ interlock }) => [createOrderSupportAgent({ interlock, model, shop })],
  roles: [...ORDER_SUPPORT_ROLES],
  demo: {
    reviewers: [
      { name: 'Olivia Operator', roles: ['operator', 'supervisor', 'retention_lead', 'logistics', 'legal'] },
      { name: 'Sam Supervisor', roles: ['supervisor'] },
      { name: 'Sue Supervisor', roles: ['supervisor'] },
      { name: 'Rita Retention', roles: ['retention_lead'] },
      { name: 'Leo Logistics', roles: ['logistics'] },
    ],
    // Enough for each role to try every verb (approve, edit, reject, respond) on its own requests.
    conversations: [
      { agent: 'order-support', input: 'I need a full refund for order ORD-999' },
      { agent: 'order-support', input: 'I need a full refund for order ORD-501' },
      { agent: 'order-support', input: 'I need a full refund for order ORD-502' },
      { agent: 'order-support', input: 'I need a full refund for order ORD-503' },
      { agent: 'order-support', input: 'Please cancel my subscription SUB-7' },
      { agent: 'order-support', input: 'Please cancel my subscription SUB-8' },
      { agent: 'order-support', input: 'Please cancel my subscription SUB-9' },
      { agent: 'order-support', input: 'Please cancel my subscription SUB-10' },
      { agent: 'order-support', input: 'Can you change the delivery address of order ORD-78291 to 123 New St' },
      { agent: 'order-support', input: 'Can you change the delivery address of order ORD-504 to 8 Maple Dr' },
      { agent: 'order-support', input: 'Can you change the delivery address of order ORD-505 to 21 Walnut Way' },
      { agent: 'order-support', input: 'Can you change the delivery address of order ORD-506 to 5 Spruce St' },
      { agent: 'order-support', input: 'partial refund of $40 for order ORD-100' },
    ],
  },
  describe: () => `order-support example agent on the ${description}`,
});
