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
  // More customers for the seeded demo, so each reviewer role has requests to approve, edit, reject and respond to.
  'test-003': {
    customerId: 'test-003',
    name: 'Ana Lindqvist',
    email: 'ana.lindqvist@example.com',
    subscriptionId: 'SUB-8',
  },
  'test-004': {
    customerId: 'test-004',
    name: 'Kofi Mensah',
    email: 'kofi.mensah@example.com',
    subscriptionId: 'SUB-9',
  },
  'test-005': { customerId: 'test-005', name: 'Mei Chen', email: 'mei.chen@example.com', subscriptionId: 'SUB-10' },
} as const;

export const ORDERS: Record<string, Order> = {
  'ORD-999': {
    orderId: 'ORD-999',
    customerId: 'test-001',
    amount: 850,
    status: 'delivered',
    address: '9 Elm St, Springfield',
  },
  'ORD-100': {
    orderId: 'ORD-100',
    customerId: 'test-001',
    amount: 45,
    status: 'delivered',
    address: '9 Elm St, Springfield',
  },
  'ORD-78291': {
    orderId: 'ORD-78291',
    customerId: 'test-002',
    amount: 899,
    status: 'delivered',
    carrierStatus: 'delivered',
    address: '4 Oak Ave, Shelbyville',
  },
  'ORD-501': {
    orderId: 'ORD-501',
    customerId: 'test-003',
    amount: 640,
    status: 'delivered',
    address: '12 Birch Rd, Ogdenville',
  },
  'ORD-502': {
    orderId: 'ORD-502',
    customerId: 'test-004',
    amount: 720,
    status: 'delivered',
    address: '3 Pine Ct, North Haverbrook',
  },
  'ORD-503': {
    orderId: 'ORD-503',
    customerId: 'test-005',
    amount: 980,
    status: 'delivered',
    address: '77 Cedar Ln, Capital City',
  },
  'ORD-504': {
    orderId: 'ORD-504',
    customerId: 'test-003',
    amount: 310,
    status: 'shipped',
    carrierStatus: 'in transit',
    address: '12 Birch Rd, Ogdenville',
  },
  'ORD-505': {
    orderId: 'ORD-505',
    customerId: 'test-004',
    amount: 150,
    status: 'shipped',
    carrierStatus: 'in transit',
    address: '3 Pine Ct, North Haverbrook',
  },
  'ORD-506': {
    orderId: 'ORD-506',
    customerId: 'test-005',
    amount: 95,
    status: 'shipped',
    carrierStatus: 'in transit',
    address: '77 Cedar Ln, Capital City',
  },
};

export const SUBSCRIPTIONS: Record<
  string,
  { subscriptionId: string; customerId: string; plan: string; monthly: number }
> = {
  'SUB-7': { subscriptionId: 'SUB-7', customerId: 'test-002', plan: 'Pro', monthly: 29 },
  'SUB-8': { subscriptionId: 'SUB-8', customerId: 'test-003', plan: 'Team', monthly: 99 },
  'SUB-9': { subscriptionId: 'SUB-9', customerId: 'test-004', plan: 'Pro', monthly: 29 },
  'SUB-10': { subscriptionId: 'SUB-10', customerId: 'test-005', plan: 'Basic', monthly: 9 },
};
