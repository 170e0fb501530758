/** Fixture data of the order-support example: a tiny shop with two customers. */
export interface Order {
  orderId: string;
  customerId: string;
  amount: number;
  status: 'delivered' | 'shipped' | 'processing';
  carrierStatus?: string;
  address: string;
}

export const CUSTOMERS = {
  'test-001': { customerId: 'test-001', name: 'Dana Reyes', email: 'dana.reyes@example.com' },
  'test-002': { customerId: 'test-002', name: 'Sam Ortiz', email: 'sam.ortiz@example.com', subscriptionId: 'SUB-7' },
} as const;

export const ORDERS: Record<string, Order> = {
  'ORD-999': { orderId: 'ORD-999', customerId: 'test-001', amount: 850, status: 'delivered', address: '9 Elm St, Springfield' },
  'ORD-100': { orderId: 'ORD-100', customerId: 'test-001', amount: 45, status: 'delivered', address: '9 Elm St, Springfield' },
  'ORD-78291': { orderId: 'ORD-78291', customerId: 'test-002', amount: 899, status: 'delivered', carrierStatus: 'delivered', address: '4 Oak Ave, Shelbyville' },
};

export const SUBSCRIPTIONS: Record<string, { subscriptionId: string; customerId: string; plan: string; monthly: number }> = {
  'SUB-7': { subscriptionId: 'SUB-7', customerId: 'test-002', plan: 'Pro', monthly: 29 },
};
