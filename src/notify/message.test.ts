import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryDelay } from './backoff.ts';
import { escapeHtml, escapeSlack, oneLine } from './escape.ts';
import { reviewUrl } from './message.ts';
import { amountOf, summarizeArgs } from './summary.ts';

describe('notification helpers', () => {
  it('builds review URLs from the base URL', () => {
    assert.equal(reviewUrl('https://il.example.com', 'apr_1'), 'https://il.example.com/approvals/apr_1');
    assert.equal(reviewUrl('https://il.example.com/base/', 'apr_1'), 'https://il.example.com/base/approvals/apr_1');
    assert.equal(reviewUrl('https://il.example.com', 'a/b?c'), 'https://il.example.com/approvals/a%2Fb%3Fc');
  });

  it('summarizes arguments amount first, one line each, within limits', () => {
    const lines = summarizeArgs({ orderId: 'O-1', note: 'line1\nline2', amount: 12.5, nested: { a: [1] } });
    assert.deepEqual(lines, [
      { key: 'amount', value: '12.5' },
      { key: 'orderId', value: 'O-1' },
      { key: 'note', value: 'line1 line2' },
      { key: 'nested', value: '{"a":[1]}' },
    ]);
    const many = summarizeArgs(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, 'v'.repeat(100)])));
    assert.equal(many.length, 9);
    assert.deepEqual(many[8], { key: '…', value: '4 more' });
    assert.equal(many[0]!.value.length, 80);
    assert.equal(amountOf({ amount: 5, currency: 'EUR' }), '5 EUR');
    assert.equal(amountOf({ total: 5 }), undefined);
  });

  it('escapes for HTML and Slack, and flattens control characters', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    assert.equal(escapeSlack('<!channel> & <@U1> "q"'), '&lt;!channel&gt; &amp; &lt;@U1&gt; "q"');
    // No line break survives (no header injection); other controls and separators show as what they are.
    assert.equal(oneLine('a\r\nBcc: x@example.com\u2028b'), 'a Bcc: x@example.com⟨U+2028 LINE SEPARATOR⟩b');
    assert.equal(oneLine('a\rb\u0000'), 'a⟨U+000D CARRIAGE RETURN⟩b⟨U+0000 NULL⟩');
  });

  it('backs off exponentially, capped, and gives up after the last attempt', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((a) => retryDelay(a)),
      [2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, null],
    );
    assert.equal(retryDelay(12, { maxAttempts: 20, baseDelayMs: 2_000, maxDelayMs: 600_000 }), 600_000);
  });
});
