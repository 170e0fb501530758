import { createHash } from 'node:crypto';
import { ValidationError } from './errors.ts';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, and only
 * values JSON can carry. The same value always gives the same bytes, so
 * hashes of actions and audit events are stable across processes.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, '$');
}

function encode(value: unknown, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw notJson(path, 'a non-finite number');
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      // Array.from visits holes of sparse arrays too (as undefined, which is refused), where map would skip them.
      if (Array.isArray(value))
        return `[${Array.from(value as unknown[], (v, i) => encode(v, `${path}[${i}]`)).join(',')}]`;
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw notJson(path, 'an invalid Date');
        return JSON.stringify(value.toISOString());
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw notJson(path, 'a class instance');
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${encode(obj[k], `${path}.${k}`)}`).join(',')}}`;
    }
    default:
      throw notJson(path, `a ${typeof value}`);
  }
}

function notJson(path: string, what: string): ValidationError {
  return new ValidationError(
    `Value at ${path} is ${what}; only plain JSON values can be hashed. Convert it to JSON first.`,
    [{ path, message: `${what} is not JSON` }],
  );
}

/** Hex sha256 of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The hash that binds a decision to one exact action: sha256 of the canonical
 * JSON of `{ tool, args }`. A reviewer sends it back with the decision, so a
 * changed action can never be approved by a stale click.
 */
export function actionHash(tool: string, args: unknown): string {
  return sha256(canonicalJson({ args, tool }));
}
