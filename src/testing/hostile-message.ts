import type { ApprovalRequestedMessage } from '../notify/message.ts';

/** An approval message whose arguments try markup, mentions and links: for channel escaping tests. */
export function hostileMessage(overrides: Partial<ApprovalRequestedMessage> = {}): ApprovalRequestedMessage {
  return {
    kind: 'approval_requested',
    id: 'apr_test1',
    threadId: 't-1',
    tool: 'issue_refund',
    args: {
      orderId: 'ORD-1',
      amount: 850,
      currency: 'USD',
      note: '<script>alert(1)</script> & <!channel> <https://evil.example|click to approve> "quoted" \'single\'',
    },
    reason: 'refund over $500',
    role: 'supervisor',
    approvalsRequired: 2,
    expiresAt: Date.UTC(2026, 0, 5, 10, 30),
    reviewUrl: 'https://interlock.example.com/approvals/apr_test1',
    ...overrides,
  };
}
