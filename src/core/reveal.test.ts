import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  findHidden,
  findHiddenDeep,
  findMixedScript,
  findMixedScriptDeep,
  hasHidden,
  hiddenName,
  reveal,
  revealDeep,
} from './reveal.ts';

// One of each family the reveal must catch.
const SAMPLES = [
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x200b, 0x200c,
  0x200d, 0x2060, 0xfeff, 0xad, 0x00, 0x07, 0x0d, 0x1b, 0x7f, 0x85, 0x9b, 0x2028, 0x2029, 0xe0041, 0xfff9, 0x3164,
];
const hiddenChar = fc.constantFrom(...SAMPLES.map((c) => String.fromCodePoint(c)));
const anyText = fc.string({
  unit: fc.oneof(
    fc.constant('a'),
    fc.constant('\n'),
    fc.constant('\t'),
    hiddenChar,
    fc.string({ unit: 'grapheme', maxLength: 1 }),
  ),
});

describe('findHidden', () => {
  it('finds the right-to-left override that turns ACC-42 around, with its position and name', () => {
    assert.deepEqual(findHidden('\u202e24-CCA'), [
      { codePoint: 0x202e, index: 0, name: 'U+202E RIGHT-TO-LEFT OVERRIDE' },
    ]);
  });

  it('finds every family: bidi controls and isolates, marks, zero-width, format, C0/C1 controls, separators', () => {
    for (const c of SAMPLES) {
      const found = findHidden(`x${String.fromCodePoint(c)}y`);
      assert.equal(found.length, 1, `U+${c.toString(16)}`);
      assert.equal(found[0]!.codePoint, c);
      assert.equal(found[0]!.index, 1);
    }
  });

  it('leaves newline, tab, ordinary letters, accents, emoji and right-to-left scripts alone', () => {
    assert.deepEqual(findHidden('line one\n\tline two — café, 東京, שלום, مرحبا, 🙂 ok'), []);
  });

  it('names the common ones and gives the bare code point for the rest', () => {
    assert.equal(hiddenName(0x200b), 'U+200B ZERO WIDTH SPACE');
    assert.equal(hiddenName(0x85), 'U+0085');
    assert.equal(hiddenName(0xe0041), 'U+E0041');
  });
});

describe('hasHidden / findHiddenDeep', () => {
  it('looks into nested strings and object keys, not into numbers or booleans', () => {
    assert.equal(hasHidden({ to: 'ACC-42', amount: 5, ok: true, list: [null, 'a'] }), false);
    assert.equal(hasHidden({ nested: [{ to: '\u202e24-CCA' }] }), true);
    assert.equal(hasHidden({ ['amo\u200bunt']: 5 }), true);
    assert.equal(hasHidden('\u2066'), true);
  });

  it('lists each code point once, in order of first appearance', () => {
    const found = findHiddenDeep({ a: '\u202e\u202e', b: ['\u200b', '\u202e'] });
    assert.deepEqual(
      found.map((c) => c.codePoint),
      [0x202e, 0x200b],
    );
  });
});

describe('reveal', () => {
  it('replaces each hidden character by a visible marker', () => {
    assert.equal(reveal('\u202e24-CCA'), '⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩24-CCA');
    assert.equal(reveal('pay\u200bpal\u0085'), 'pay⟨U+200B ZERO WIDTH SPACE⟩pal⟨U+0085⟩');
  });

  it('property: the output never contains a hidden character', () => {
    fc.assert(fc.property(anyText, (text) => findHidden(reveal(text)).length === 0));
  });

  it('property: text without hidden characters comes back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => findHidden(text).length > 0 || reveal(text) === text),
    );
  });

  it('property: a revealed text is longer exactly when something was hidden, and the visible characters keep their order', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const out = reveal(text);
        const visible = text.replaceAll(/(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/gu, '');
        return out.replaceAll(/⟨U\+[0-9A-F]{4,6}( [A-Z -]+)?⟩/g, '') === visible && (out === text) === !hasHidden(text);
      }),
    );
  });
});

describe('revealDeep', () => {
  it('reveals strings and keys deep, keeps other values, and does not touch its input', () => {
    const input = { ['k\u200d']: ['\u202eabc', 1, null, { x: false }] };
    const out = revealDeep(input);
    assert.deepEqual(out, {
      'k⟨U+200D ZERO WIDTH JOINER⟩': ['⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩abc', 1, null, { x: false }],
    });
    assert.equal(input['k\u200d'][0], '\u202eabc');
  });

  it('property: the revealed value holds no hidden character anywhere', () => {
    const json = fc.jsonValue().map((v) => ({ v, s: '\u202e' }));
    fc.assert(
      fc.property(
        json,
        fc.dictionary(anyText, anyText),
        (a, b) => !hasHidden(revealDeep(a)) && !hasHidden(revealDeep(b)),
      ),
    );
  });
});

describe('findMixedScript (look-alikes)', () => {
  it('flags a Latin word carrying a Cyrillic or Greek letter', () => {
    assert.deepEqual(findMixedScript('pay to p\u0430ypal now'), ['p\u0430ypal']);
    assert.deepEqual(findMixedScriptDeep({ payee: 'G\u03bfogle Inc', note: 'ok' }), ['G\u03bfogle']);
  });

  it('leaves words of one script alone, even side by side', () => {
    assert.deepEqual(findMixedScript('Hello Привет Γειά café'), []);
  });
});
