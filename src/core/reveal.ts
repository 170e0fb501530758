/**
 * Hidden characters: code points that change what a reviewer sees without
 * showing themselves — bidi controls (U+202E turns `ACC-42` into the bytes
 * `\u202e24-CCA`), zero-width characters, other format characters (Unicode
 * category Cf), line/paragraph separators, fill letters that draw nothing, and
 * C0/C1 controls except `\n` and `\t`.
 *
 * Every reviewer surface (web card, CLI, notifications) shows them through
 * {@link reveal}, while the stored arguments and the action hash keep the exact
 * bytes that will run. This module has NO imports on purpose: the web UI
 * serves it to the browser as-is (src/web/assets.ts), so the server and the
 * page decide "hidden" by the same rule.
 */

/** One hidden character found in a text. */
export interface HiddenChar {
  /** The code point, e.g. 0x202e. */
  codePoint: number;
  /** Position in the string, in UTF-16 code units (what `String.prototype.slice` takes). */
  index: number;
  /** `U+202E RIGHT-TO-LEFT OVERRIDE`, or just `U+XXXX` for a less common one. */
  name: string;
}

// \p{Cc} minus \t and \n, \p{Cf} (bidi controls and isolates, LRM/RLM/ALM, zero-width characters, U+2060,
// U+FEFF, soft hyphen, tags…), \p{Zl}/\p{Zp} (separators that break a line unseen), and the Hangul fillers,
// letters that draw nothing. The `u` flag (not `v`) keeps it valid for the browser project's ES2022 target.
const HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/gu;

// Names for the characters an attacker actually reaches for; any other hidden one shows as its code point.
const NAMES: Record<number, string> = {
  0x00: 'NULL',
  0x08: 'BACKSPACE',
  0x0d: 'CARRIAGE RETURN',
  0x1b: 'ESCAPE',
  0x7f: 'DELETE',
  0xad: 'SOFT HYPHEN',
  0x061c: 'ARABIC LETTER MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3164: 'HANGUL FILLER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

/** `U+202E RIGHT-TO-LEFT OVERRIDE` for a known code point, `U+XXXX` otherwise. */
export function hiddenName(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES[codePoint];
  return name ? `${hex} ${name}` : hex;
}

/** Every hidden character of `text`, in order. */
export function findHidden(text: string): HiddenChar[] {
  const out: HiddenChar[] = [];
  for (const m of text.matchAll(HIDDEN)) {
    const codePoint = m[0].codePointAt(0)!;
    out.push({ codePoint, index: m.index, name: hiddenName(codePoint) });
  }
  return out;
}

/**
 * Every hidden character anywhere in a JSON value — in strings and in object
 * keys — each code point once, in order of first appearance.
 */
export function findHiddenDeep(value: unknown): HiddenChar[] {
  const seen = new Map<number, HiddenChar>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const c of findHidden(v)) if (!seen.has(c.codePoint)) seen.set(c.codePoint, c);
    } else if (Array.isArray(v)) {
      for (const x of v) visit(x);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        visit(k);
        visit(x);
      }
    }
  };
  visit(value);
  return [...seen.values()];
}

/** True when any string or object key inside a JSON value holds a hidden character. */
export function hasHidden(value: unknown): boolean {
  return findHiddenDeep(value).length > 0;
}

/**
 * `text` with each hidden character replaced by a visible marker such as
 * `⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩`. Text without hidden characters comes back
 * unchanged; the result never contains one. For display only: never store or
 * hash what this returns.
 * @example
 * reveal('\u202e24-CCA') // '⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩24-CCA'
 */
export function reveal(text: string): string {
  return text.replace(HIDDEN, (c) => `⟨${hiddenName(c.codePointAt(0)!)}⟩`);
}

/** A JSON value with {@link reveal} applied to every string and object key, for display. */
export function revealDeep(value: unknown): unknown {
  if (typeof value === 'string') return reveal(value);
  if (Array.isArray(value)) return value.map(revealDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [reveal(k), revealDeep(v)]));
  }
  return value;
}

/** A short list for warnings: `U+202E RIGHT-TO-LEFT OVERRIDE, U+200B ZERO WIDTH SPACE`. */
export function describeHidden(chars: readonly HiddenChar[]): string {
  return [...new Set(chars.map((c) => c.name))].join(', ');
}

// Scripts whose letters look like Latin ones (а/a, е/e, о/o, р/p, ο/o…): a word mixing them is a likely spoof.
const LATIN = /\p{Script=Latin}/u;
const LOOKALIKE = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;
const WORD = /[\p{L}\p{M}]+/gu;

/**
 * Words that mix Latin letters with Cyrillic or Greek ones (`pаypal` with a
 * Cyrillic `а`): likely look-alike spoofs. A warning aid, not a proof.
 */
export function findMixedScript(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) if (LATIN.test(m[0]) && LOOKALIKE.test(m[0])) out.push(m[0]);
  return out;
}

/** Mixed-script words anywhere in a JSON value (strings and keys), each once. */
export function findMixedScriptDeep(value: unknown): string[] {
  const seen = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') for (const w of findMixedScript(v)) seen.add(w);
    else if (Array.isArray(v)) for (const x of v) visit(x);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        visit(k);
        visit(x);
      }
    }
  };
  visit(value);
  return [...seen];
}
