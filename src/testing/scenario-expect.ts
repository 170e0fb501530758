import { AssertionError } from 'node:assert';
import { inspect, isDeepStrictEqual } from 'node:util';

/**
 * Fail a scenario expectation with a message that says what was expected and
 * what was seen. `actual` and `expected` are kept on the error, so test
 * reporters can diff them.
 */
export function fail(what: string, expected: unknown, actual: unknown): never {
  throw new AssertionError({
    message: `${what}\n  expected: ${show(expected)}\n  saw:      ${show(actual)}`,
    expected,
    actual,
    operator: 'scenario',
    stackStartFn: fail,
  });
}

/** One line of a value, for failure messages. */
export function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : inspect(v, { depth: 4, breakLength: Infinity });
}

/** True when every key of `partial` is deep-equal in `full` (other keys of `full` are ignored). */
export function matchesPartial(
  full: Record<string, unknown> | undefined,
  partial: Record<string, unknown> | undefined,
): boolean {
  if (!partial) return true;
  if (!full) return false;
  return Object.entries(partial).every(([k, v]) => isDeepStrictEqual(full[k], v));
}

/** A text or pattern test, as the reply expectations take it. */
export function textMatches(text: string, pattern: string | RegExp): boolean {
  return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
}
