import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unknownFields } from './unknown-fields.ts';

describe('unknownFields: what a schema dropped', () => {
  it('names dropped keys, nested ones by path, and nothing when all were kept', () => {
    assert.deepEqual(unknownFields({ amount: 1, bankAccount: 'x' }, { amount: 1 }), ['bankAccount']);
    assert.deepEqual(
      unknownFields(
        { to: { iban: 'x', note: 'n' }, items: [{ sku: 'a', price: 0 }] },
        { to: { iban: 'x' }, items: [{ sku: 'a' }] },
      ),
      ['to.note', 'items.0.price'],
    );
    assert.deepEqual(unknownFields({ amount: 1, when: '2026-01-01' }, { amount: 1, when: new Date('2026-01-01') }), []);
    assert.deepEqual(unknownFields({ a: 1 }, { a: 1, b: 2 }), [], 'defaults the schema added are not unknown');
  });
});
