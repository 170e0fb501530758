import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { redact, redactMessages, redactText } from './redact.ts';

/** The digit that makes `payload + digit` pass the Luhn check. */
function luhnDigit(payload: string): number {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

const digitString = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
/** Luhn-valid card numbers of 13 to 19 digits. */
const cardArb = digitString(12, 18).map((p) => `${p}${luhnDigit(p)}`);
/** The same payloads with a wrong check digit. */
const notCardArb = fc
  .tuple(digitString(12, 18), fc.integer({ min: 1, max: 9 }))
  .map(([p, off]) => `${p}${(luhnDigit(p) + off) % 10}`);

describe('redactText: card numbers', () => {
  it('masks Luhn-valid card numbers, keeping the last four digits', () => {
    assert.equal(redactText('card 4111111111111111 on file'), 'card [card ****1111] on file');
    assert.equal(redactText('4111 1111 1111 1111'), '[card ****1111]');
    assert.equal(redactText('4111-1111-1111-1111.'), '[card ****1111].');
    assert.equal(
      redactText('Mastercard 5555555555554444, Amex 378282246310005'),
      'Mastercard [card ****4444], Amex [card ****0005]',
    );
    assert.equal(redactText('amex 3782 822463 10005'), 'amex [card ****0005]');
    assert.equal(redactText('(4242424242424242)'), '([card ****4242])');
  });

  it('finds a card written next to another number', () => {
    // Regressions: "2 4111111111111111" was matched as one 17-digit run that fails Luhn, hiding the card;
    // "123456 4111 1111 1111 1111" had its first 18 digits taken as one run, leaving the card unmasked.
    assert.equal(redactText('qty 2 4111111111111111'), 'qty 2 [card ****1111]');
    assert.equal(redactText('ref 123456 4111 1111 1111 1111'), 'ref 123456 [card ****1111]');
    assert.equal(redactText('account 12345678 4111 1111 1111 1111 thanks'), 'account 12345678 [card ****1111] thanks');
    assert.equal(redactText('4111 1111 1111 1111 4242 4242 4242 4242'), '[card ****1111] [card ****4242]');
    assert.equal(redactText('ORD-12 4242424242424242'), 'ORD-12 [card ****4242]');
    assert.equal(redactText('card 4111 1111 1111 1111 2 items'), 'card [card ****1111] 2 items');
    assert.equal(redactText('call 415-555-0100 5555555555554444'), 'call [phone ***00] [card ****4444]');
  });

  it('finds a card next to another number on either side (property)', () => {
    fc.assert(
      fc.property(cardArb, digitString(1, 12), fc.constantFrom(' ', '-'), fc.boolean(), (card, other, sep, before) => {
        const text = before ? `x ${other}${sep}${card} y` : `x ${card}${sep}${other} y`;
        const out = redactText(text);
        assert.ok(!out.includes(card), out);
        // Usually the card alone is masked; when the joined run is itself Luhn-valid, the whole run is.
        assert.match(out, /\[card \*{4}\d{4}\]/);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves digit strings that fail the Luhn check alone', () => {
    assert.equal(redactText('tracking 4111111111111112'), 'tracking 4111111111111112');
    assert.equal(redactText('ref 1234567890123'), 'ref 1234567890123');
  });

  it('leaves too-short and too-long digit runs alone', () => {
    // 12 digits: below card length, even if Luhn-valid.
    assert.equal(redactText('id 411111111113'), 'id 411111111113');
    // 20+ digits: not a card, and no card hides inside a longer run.
    assert.equal(redactText('ref 41111111111111110000'), 'ref 41111111111111110000');
    assert.equal(redactText('x412345678901234567890123x'), 'x412345678901234567890123x');
  });

  it('masks every card in a run of cards and numbers (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(cardArb, digitString(1, 6)), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(' ', '-'),
        (pieces, sep) => {
          const out = redactText(`[${pieces.join(sep)}]`);
          for (const p of pieces) if (p.length >= 13) assert.ok(!out.includes(p), `${p} left in ${out}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('masks any Luhn-valid 13-19 digit number (property)', () => {
    fc.assert(
      fc.property(cardArb, (card) => {
        assert.equal(redactText(`pay with ${card} today`), `pay with [card ****${card.slice(-4)}] today`);
      }),
      { numRuns: 300 },
    );
  });

  it('masks cards written in groups of four (property)', () => {
    fc.assert(
      fc.property(digitString(15, 15), fc.constantFrom(' ', '-'), (payload, sep) => {
        const card = `${payload}${luhnDigit(payload)}`;
        const grouped = card.match(/.{4}/g)!.join(sep);
        assert.equal(redactText(`card: ${grouped}`), `card: [card ****${card.slice(-4)}]`);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves contiguous non-Luhn digit strings unchanged (property)', () => {
    fc.assert(
      fc.property(notCardArb, (digits) => {
        assert.equal(redactText(`ref ${digits}`), `ref ${digits}`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('redactText: e-mail addresses', () => {
  it('keeps the first character and the domain', () => {
    assert.equal(redactText('Contact jane.doe@example.com now'), 'Contact j***@example.com now');
    assert.equal(redactText('a+tag@mail.sub.example.co.uk'), 'a***@mail.sub.example.co.uk');
    assert.equal(redactText('JOHN_SMITH@Example.ORG.'), 'J***@Example.ORG.');
  });

  it('masks every address in the text', () => {
    assert.equal(redactText('from: bob@x.io, cc: carol@y.dev'), 'from: b***@x.io, cc: c***@y.dev');
  });

  it('leaves things that are not addresses', () => {
    assert.equal(redactText('@mention and user@localhost and a@b.c'), '@mention and user@localhost and a@b.c');
  });
});

describe('redactText: phone numbers', () => {
  const cases: [string, string][] = [
    ['call 415-555-0100', 'call [phone ***00]'],
    ['call (415) 555-0100', 'call [phone ***00]'],
    ['call +1 (415) 555-0100', 'call [phone ***00]'],
    ['call 415.555.0199 please', 'call [phone ***99] please'],
    ['call 415 555 0123', 'call [phone ***23]'],
    ['call +44 20 7946 0958', 'call [phone ***58]'],
    ['call +14155550100', 'call [phone ***00]'],
    ['call +442079460958.', 'call [phone ***58].'],
  ];
  for (const [input, expected] of cases) {
    it(`masks ${JSON.stringify(input)}, keeping the last two digits`, () => {
      assert.equal(redactText(input), expected);
    });
  }
});

describe('redactText: ordinary text and numbers are left alone', () => {
  const untouched = [
    'Refund $850 for order ORD-999',
    'amount: 850',
    'total 1,234.56 EUR',
    'invoice 12345678',
    'on 2024-01-15 at 10:30',
    'ORD-2024-0001',
    'version 1.2.3',
    'call me later',
    'room 101, floor 3',
    '',
  ];
  for (const text of untouched) {
    it(JSON.stringify(text), () => {
      assert.equal(redactText(text), text);
    });
  }

  it('integers up to twelve digits and money amounts (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999 }), fc.integer({ min: 0, max: 99 }), (n, cents) => {
        assert.equal(redactText(`refund ${n}`), `refund ${n}`);
        const amount = `$${n}.${String(cents).padStart(2, '0')}`;
        assert.equal(redactText(`refund ${amount}`), `refund ${amount}`);
        assert.equal(redactText(`order ORD-${n}`), `order ORD-${n}`);
      }),
      { numRuns: 300 },
    );
  });

  it('text without digits or "@" is unchanged (property)', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/[\d@]/.test(s)),
        (s) => {
          assert.equal(redactText(s), s);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('redactText: mixed text', () => {
  it('masks each kind in one message', () => {
    const text =
      'Hi, I am jane@example.com, card 4111 1111 1111 1111, phone +1 415-555-0100. Please refund $850 on ORD-999.';
    assert.equal(
      redactText(text),
      'Hi, I am j***@example.com, card [card ****1111], phone [phone ***00]. Please refund $850 on ORD-999.',
    );
  });

  it('is idempotent (property)', () => {
    const piece = fc.oneof(
      cardArb,
      notCardArb,
      fc.constantFrom(
        'jane.doe@example.com',
        '+1 (415) 555-0100',
        '415-555-0100',
        '+14155550100',
        'ORD-999',
        '$850',
        'refund',
        'please',
        '2024-01-15',
      ),
      fc.integer({ min: 0, max: 100_000 }).map(String),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.constantFrom(' ', ', ', '\n'), (pieces, sep) => {
        const once = redactText(pieces.join(sep));
        assert.equal(redactText(once), once);
      }),
      { numRuns: 300 },
    );
  });

  it('never leaves a Luhn-valid card number in the output (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), cardArb, fc.string({ maxLength: 10 }), (before, card, after) => {
        fc.pre(!/[\w]$/.test(before) && !/^[\w]/.test(after));
        assert.ok(!redactText(`${before}${card}${after}`).includes(card));
      }),
      { numRuns: 300 },
    );
  });
});

describe('redact', () => {
  it('redacts strings at any depth and keeps everything else', () => {
    const evidence = {
      customer: { email: 'jane@example.com', phone: '415-555-0100', id: 'C-7' },
      messages: ['my card is 4111111111111111', { text: 'reach me at bob@x.io' }],
      amount: 850,
      orderId: 'ORD-999',
      vip: true,
      note: null,
      count: 4111111111111111,
    };
    assert.deepEqual(redact(evidence), {
      customer: { email: 'j***@example.com', phone: '[phone ***00]', id: 'C-7' },
      messages: ['my card is [card ****1111]', { text: 'reach me at b***@x.io' }],
      amount: 850,
      orderId: 'ORD-999',
      vip: true,
      note: null,
      count: 4111111111111111,
    });
  });

  it('keeps keys as they are', () => {
    assert.deepEqual(redact({ 'jane@example.com': 'ok' }), { 'jane@example.com': 'ok' });
  });

  it('keeps a "__proto__" key of untrusted JSON as a plain key, not as the prototype', () => {
    const input: unknown = JSON.parse('{"__proto__":{"isAdmin":true,"email":"jane@example.com"},"a":1}');
    const out = redact(input) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal((out as { isAdmin?: unknown }).isAdmin, undefined);
    assert.deepEqual(Object.keys(out), ['__proto__', 'a']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, {
      isAdmin: true,
      email: 'j***@example.com',
    });
  });

  it('does not modify its input', () => {
    const input = { a: ['jane@example.com'], b: { c: '4111111111111111' } };
    const copy = structuredClone(input);
    const out = redact(input);
    assert.deepEqual(input, copy);
    assert.notEqual(out, input);
    assert.notEqual(out.a, input.a);
    assert.notEqual(out.b, input.b);
  });

  it('handles top-level strings, arrays and scalars', () => {
    assert.equal(redact('jane@example.com'), 'j***@example.com');
    assert.deepEqual(redact(['jane@example.com', 1]), ['j***@example.com', 1]);
    assert.equal(redact(42), 42);
    assert.equal(redact(null), null);
    assert.equal(redact(undefined), undefined);
    assert.equal(redact(false), false);
  });

  it('keeps the shape of any JSON value and changes only strings (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const out = redact(value);
        const shape = (v: unknown): unknown =>
          typeof v === 'string'
            ? 'S'
            : Array.isArray(v)
              ? v.map(shape)
              : v !== null && typeof v === 'object'
                ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]))
                : v;
        assert.deepEqual(shape(out), shape(value));
      }),
      { numRuns: 200 },
    );
  });
});

describe('redactMessages: the conversation as reviewers see it', () => {
  const pii = 'card 4111 1111 1111 1111, call +1 415 555 0100, mail jane.doe@example.com';
  const messages = [
    { role: 'user', content: [{ type: 'text', text: pii }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `You said: ${pii}` },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'send_email', input: { to: 'jane.doe@example.com' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'look_up_order',
          output: { type: 'json', value: { email: 'jane.doe@example.com' } },
        },
      ],
    },
    { role: 'user', content: `legacy string content ${pii}` },
  ];

  it('masks text and tool results as the card masks evidence, and keeps tool-call inputs exact', () => {
    const out = JSON.stringify(redactMessages(messages));
    assert.ok(!out.includes('4111 1111 1111 1111') && !out.includes('555 0100'), out);
    assert.equal(
      out.match(/jane\.doe@example\.com/g)?.length,
      1,
      'only the tool-call input keeps the address: it is what runs',
    );
    assert.match(out, /\[card \*\*\*\*1111\]/);
    assert.match(out, /j\*\*\*@example\.com/);
  });

  it('leaves the stored messages unchanged', () => {
    const before = JSON.stringify(messages);
    redactMessages(messages);
    assert.equal(JSON.stringify(messages), before);
  });
});
