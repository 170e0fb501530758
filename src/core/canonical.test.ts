import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { actionHash, canonicalJson, sha256 } from './canonical.ts';
import { InterlockUsageError, ValidationError, type FieldIssue } from './errors.ts';
import { httpStatus } from '../server/errors.ts';

/** The same JSON value with every object's keys inserted in a shuffled order. */
function shuffleKeys(value: unknown, rnd: () => number): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => shuffleKeys(v, rnd));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      const a = entries[i]!;
      entries[i] = entries[j]!;
      entries[j] = a;
    }
    // fromEntries defines own properties, so a "__proto__" key stays a plain key.
    return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, rnd)]));
  }
  return value;
}

/** A reference implementation: sort keys recursively, then JSON.stringify. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => sortedCopy(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortedCopy((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function hasNegativeZero(value: unknown): boolean {
  if (Object.is(value, -0)) return true;
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasNegativeZero);
  return false;
}

function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

function assertNotJson(value: unknown, path: string): void {
  assert.throws(
    () => canonicalJson(value),
    (err: unknown) => {
      assert.ok(err instanceof ValidationError, `expected ValidationError, got ${String(err)}`);
      assert.ok(err instanceof InterlockUsageError);
      assert.equal(err.code, 'invalid_input');
      assert.equal(httpStatus(err), 400);
      assert.match(err.message, new RegExp(`at ${path.replace(/[$.[\]]/g, '\\$&')} is`));
      const issues = err.details.issues as FieldIssue[];
      assert.equal(issues.length, 1);
      assert.equal(issues[0]?.path, path);
      return true;
    },
  );
}

describe('canonicalJson', () => {
  it('sorts object keys at every depth and writes no whitespace', () => {
    const value = { b: 1, a: [3, { d: 'x', c: null }], c: { z: true, y: false } };
    assert.equal(canonicalJson(value), '{"a":[3,{"c":null,"d":"x"}],"b":1,"c":{"y":false,"z":true}}');
  });

  it('keeps array order', () => {
    assert.equal(canonicalJson([3, 1, 2]), '[3,1,2]');
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  });

  it('sorts keys by UTF-16 code unit, not by locale or code point', () => {
    const value = { é: 1, a: 2, B: 3, '': 4, aa: 5, Z: 6, '\uFFFF': 7, '😀': 8 };
    // '😀' is \uD83D\uDE00: its first code unit sorts before \uFFFF even though its code point is higher.
    assert.equal(canonicalJson(value), '{"":4,"B":3,"Z":6,"a":2,"aa":5,"é":1,"😀":8,"\uFFFF":7}');
  });

  it('encodes primitives like JSON', () => {
    assert.equal(canonicalJson(null), 'null');
    assert.equal(canonicalJson(true), 'true');
    assert.equal(canonicalJson(false), 'false');
    assert.equal(canonicalJson(0), '0');
    assert.equal(canonicalJson(-0), '0');
    assert.equal(canonicalJson(1.5), '1.5');
    assert.equal(canonicalJson(-42), '-42');
    assert.equal(canonicalJson(1e21), '1e+21');
    assert.equal(canonicalJson(Number.MAX_SAFE_INTEGER), '9007199254740991');
    assert.equal(canonicalJson('he said "hi"\n\u0001'), '"he said \\"hi\\"\\n\\u0001"');
    assert.equal(canonicalJson(''), '""');
  });

  it('escapes keys', () => {
    assert.equal(canonicalJson({ 'a"b': 1, 'line\nbreak': 2 }), '{"a\\"b":1,"line\\nbreak":2}');
  });

  it('omits properties whose value is undefined, so they hash like absent ones', () => {
    assert.equal(canonicalJson({ a: 1, b: undefined }), '{"a":1}');
    assert.equal(canonicalJson({ a: 1, b: undefined }), canonicalJson({ a: 1 }));
    assert.equal(canonicalJson({ nested: { x: undefined } }), '{"nested":{}}');
  });

  it('writes a Date as its ISO string', () => {
    assert.equal(canonicalJson({ at: new Date('2024-01-15T12:00:00.000Z') }), '{"at":"2024-01-15T12:00:00.000Z"}');
  });

  it('accepts objects without a prototype and own "__proto__" keys', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.b = 2;
    bare.a = 1;
    assert.equal(canonicalJson(bare), '{"a":1,"b":2}');
    const parsed: unknown = JSON.parse('{"__proto__":{"x":1},"a":0}');
    assert.equal(canonicalJson(parsed), '{"__proto__":{"x":1},"a":0}');
  });

  it('encodes empty containers', () => {
    assert.equal(canonicalJson({}), '{}');
    assert.equal(canonicalJson([]), '[]');
    assert.equal(canonicalJson({ a: [], b: {} }), '{"a":[],"b":{}}');
  });

  describe('refuses values JSON cannot carry, naming the path', () => {
    it('non-finite numbers', () => {
      assertNotJson(NaN, '$');
      assertNotJson({ a: Infinity }, '$.a');
      assertNotJson({ a: [1, -Infinity] }, '$.a[1]');
    });

    it('bigint, symbol, function and undefined', () => {
      assertNotJson({ n: 10n }, '$.n');
      assertNotJson({ s: Symbol('x') }, '$.s');
      assertNotJson({ deep: { f: () => 1 } }, '$.deep.f');
      assertNotJson(undefined, '$');
      assertNotJson([1, undefined], '$[1]');
    });

    it('class instances', () => {
      class Money {
        amount = 5;
      }
      assertNotJson({ m: new Money() }, '$.m');
      assertNotJson({ map: new Map([['a', 1]]) }, '$.map');
      assertNotJson([new Set([1])], '$[0]');
      assertNotJson({ re: /x/ }, '$.re');
    });

    it('invalid dates', () => {
      assertNotJson({ at: new Date(NaN) }, '$.at');
    });

    it('holes in sparse arrays (which would otherwise produce invalid JSON)', () => {
      const sparse: unknown[] = [1];
      sparse[2] = 3;
      assertNotJson({ list: sparse }, '$.list[1]');
    });

    it('paths go through arrays inside objects inside arrays', () => {
      assertNotJson([{ a: [{ b: NaN }] }], '$[0].a[0].b');
    });
  });

  describe('properties', () => {
    it('is independent of key insertion order', () => {
      fc.assert(
        fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
          const shuffled = shuffleKeys(value, seededRandom(seed));
          assert.equal(canonicalJson(shuffled), canonicalJson(value));
        }),
        { numRuns: 300 },
      );
    });

    it('round-trips: parsing the output gives back the value', () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const text = canonicalJson(value);
          // Through JSON, as JSON.stringify does, -0 comes back as 0; everything else is exact.
          assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
          if (!hasNegativeZero(value)) assert.deepEqual(JSON.parse(text), value);
        }),
        { numRuns: 300 },
      );
    });

    it('is a fixed point: canonicalizing parsed canonical output gives the same bytes', () => {
      fc.assert(
        fc.property(fc.jsonValue({ stringUnit: 'grapheme' }), (value) => {
          const text = canonicalJson(value);
          assert.equal(canonicalJson(JSON.parse(text)), text);
        }),
        { numRuns: 300 },
      );
    });

    it('equals JSON.stringify of a recursively key-sorted copy', () => {
      fc.assert(
        fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
          assert.equal(canonicalJson(value), JSON.stringify(sortedCopy(value)));
        }),
        { numRuns: 300 },
      );
    });

    it('different JSON values give different bytes', () => {
      fc.assert(
        fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
          // Compared as JSON, so that -0 and 0 (both written "0") count as equal.
          fc.pre(!isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))));
          assert.notEqual(canonicalJson(a), canonicalJson(b));
        }),
        { numRuns: 300 },
      );
    });
  });
});

describe('sha256', () => {
  it('matches the published test vectors', () => {
    assert.equal(sha256(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes the UTF-8 bytes of the text', () => {
    assert.equal(
      sha256('é'),
      createHash('sha256')
        .update(Buffer.from([0xc3, 0xa9]))
        .digest('hex'),
    );
    assert.notEqual(sha256('é'), sha256('e\u0301'));
  });
});

describe('actionHash', () => {
  it('is the sha256 of the canonical JSON of { args, tool }', () => {
    const args = { orderId: 'ORD-999', amount: 850 };
    assert.equal(
      actionHash('issue_refund', args),
      sha256('{"args":{"amount":850,"orderId":"ORD-999"},"tool":"issue_refund"}'),
    );
    assert.match(actionHash('issue_refund', args), /^[0-9a-f]{64}$/);
  });

  it('does not depend on argument key order', () => {
    assert.equal(actionHash('t', { a: 1, b: { c: 2, d: 3 } }), actionHash('t', { b: { d: 3, c: 2 }, a: 1 }));
  });

  it('changes when the tool or any argument changes', () => {
    const base = actionHash('issue_refund', { amount: 850, orderId: 'ORD-999' });
    assert.notEqual(actionHash('issue_credit', { amount: 850, orderId: 'ORD-999' }), base);
    assert.notEqual(actionHash('issue_refund', { amount: 851, orderId: 'ORD-999' }), base);
    assert.notEqual(actionHash('issue_refund', { amount: '850', orderId: 'ORD-999' }), base);
    assert.notEqual(actionHash('issue_refund', { amount: 850, orderId: 'ORD-999', note: '' }), base);
  });

  it('cannot be confused by moving text between tool and args', () => {
    assert.notEqual(actionHash('a', { b: 1 }), actionHash('ab', {}));
  });

  it('refuses non-JSON arguments with a coded error', () => {
    assert.throws(() => actionHash('t', { when: new Map() }), { code: 'invalid_input' });
  });

  it('is stable under key reordering (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), fc.integer(), (tool, args, seed) => {
        const shuffled = shuffleKeys(args, seededRandom(seed));
        assert.equal(actionHash(tool, shuffled), actionHash(tool, args));
        assert.equal(actionHash(tool, args), actionHash(tool, JSON.parse(JSON.stringify(args))));
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic across calls (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (tool, args) => {
        assert.equal(actionHash(tool, args), actionHash(tool, args));
      }),
    );
  });
});
