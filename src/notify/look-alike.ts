import { findMixedScriptDeep } from '../core/reveal.ts';

/**
 * Words of a value that mix Latin letters with Cyrillic or Greek look-alikes ("1 Мaple Dr" with a
 * Cyrillic М, "pаypal" with a Cyrillic а) — the same check as the review card's (core/reveal.ts) —
 * put into words for Slack, e-mail and the CLI. A warning aid, not a proof: such a word is most
 * often a spoof of the Latin one.
 */

/** The quoted look-alike words of `value`, at most `max` of them ("“Мaple”, “pаypal”"), or undefined. */
export function lookAlikeWords(value: unknown, max = 5): string | undefined {
  const words = findMixedScriptDeep(value);
  if (words.length === 0) return undefined;
  const shown = words.slice(0, max).map((w) => `“${w}”`);
  return words.length > max ? `${shown.join(', ')} and ${words.length - max} more` : shown.join(', ');
}

/**
 * The warning for arguments holding look-alike letters, or undefined:
 * "Look-alike letters in the arguments: “Мaple” mixes Latin with Cyrillic or Greek letters…".
 */
export function lookAlikeWarning(args: unknown): string | undefined {
  const words = lookAlikeWords(args);
  if (words === undefined) return undefined;
  const n = findMixedScriptDeep(args).length;
  return `Look-alike letters in the arguments: ${words} ${n === 1 ? 'mixes' : 'mix'} Latin with Cyrillic or Greek letters. Check them letter by letter: they run exactly as sent.`;
}
