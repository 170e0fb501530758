/**
 * The failed-approval message renders the tool's error as untrusted text: no Slack mention, link or
 * markup can form from it, none in the e-mail HTML, and hidden characters show as ⟨U+…⟩.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { emailMessage } from './email-message.ts';
import type { ApprovalFailedMessage } from './message.ts';
import { slackMessage } from './slack-message.ts';
import { webhookSummary } from './webhook-channel.ts';

const message: ApprovalFailedMessage = {
  kind: 'approval_execution_failed',
  id: 'apr_1',
  threadId: 't_1',
  tool: 'issue_refund',
  args: { orderId: 'ORD-1', amount: 90 },
  reason: 'every refund',
  role: 'supervisor',
  error: '<!channel> <https://evil.example|retry here> <b>now</b> \u202eyap',
  approvers: [{ id: 'dana', name: 'Dana' }],
  failedAt: Date.UTC(2026, 0, 5, 10, 30),
  approvalsRequired: null,
  expiresAt: null,
  reviewUrl: 'https://il.example.com/approvals/apr_1',
  threadUrl: 'https://il.example.com/threads/t_1',
};

it('escapes the error in Slack, e-mail and the webhook summary, and reveals hidden characters', () => {
  const slack = JSON.stringify(slackMessage(message));
  assert.match(slack, /&lt;!channel&gt; &lt;https:\/\/evil\.example\|retry here&gt;/);
  assert.doesNotMatch(slack, /<!channel>|<https:\/\/evil/);
  assert.match(slack, /⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩yap/);
  const links = [...slack.matchAll(/"url":"([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(links, [message.reviewUrl, message.threadUrl], 'the only links: the card and the thread');

  const mail = emailMessage(message);
  assert.match(mail.html, /&lt;b&gt;now&lt;\/b&gt;/);
  assert.doesNotMatch(mail.html, /<b>now|href="https:\/\/evil/);
  assert.match(mail.subject, /^\[Interlock\] Your approval did not happen: issue_refund failed: <!channel>/);
  assert.match(mail.text, /Error: .*⟨U\+202E RIGHT-TO-LEFT OVERRIDE⟩yap/);
  assert.match(mail.text, /Failed at: 2026-01-05 10:30 UTC/);

  assert.match(
    webhookSummary(message).headline,
    /^Your approval did not happen: issue_refund failed: <!channel> .*⟨U\+202E/,
  );
});
