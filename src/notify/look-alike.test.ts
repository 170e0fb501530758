/** Slack messages mark look-alike letters in the arguments: a warning block naming the words, and a chip on the argument. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NotificationMessage } from './message.ts';
import { slackMessage } from './slack-message.ts';
import { lookAlikeWarning } from './look-alike.ts';

function message(args: Record<string, unknown>): NotificationMessage {
  return {
    kind: 'approval_requested',
    id: 'apr_1',
    threadId: 'thr_1',
    tool: 'change_shipped_address',
    args,
    reason: 'address changes are reviewed',
    role: 'logistics',
    approvalsRequired: 1,
    expiresAt: Date.UTC(2026, 0, 5, 10, 30),
    reviewUrl: 'https://interlock.example/approvals/apr_1',
  };
}

const texts = (args: Record<string, unknown>) =>
  slackMessage(message(args)).blocks.flatMap((b) => ('text' in b && b.text ? [b.text.text] : []));

describe('look-alike letters in Slack messages', () => {
  it('a warning block names the words, and the argument that holds one carries a chip', () => {
    const all = texts({ orderId: 'ORD-7', address: '1 Мaple Dr', email: 'billing@pаypal.com' });
    assert.ok(
      all.includes(
        ':warning: *Look-alike letters in the arguments: “Мaple”, “pаypal” mix Latin with Cyrillic or Greek letters. Check them letter by letter: they run exactly as sent.*',
      ),
      all.join('\n'),
    );
    const args = all.find((t) => t.startsWith('*Arguments*'))!;
    assert.match(args, /• address: 1 Мaple Dr {2}:warning: _look-alike letters: “Мaple”_/);
    assert.match(args, /• email: billing@pаypal\.com {2}:warning: _look-alike letters: “pаypal”_/);
    assert.match(args, /• orderId: ORD-7$/m, 'no chip where nothing mixes');
  });

  it('says nothing of Latin-only or Cyrillic-only words', () => {
    const all = texts({ address: '1 Maple Dr, Москва' });
    assert.ok(!all.some((t) => /look-alike/i.test(t)), all.join('\n'));
    assert.equal(lookAlikeWarning({ a: 'Maple', b: 'Москва', c: 'Αθήνα' }), undefined);
  });
});
