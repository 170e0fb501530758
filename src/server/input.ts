import type { Context } from 'hono';
import type { z } from 'zod';
import { ValidationError } from '../core/index.ts';
import { parseOrThrow } from './errors.ts';

/** The request's JSON body checked against `schema`; a malformed or invalid body is a 400 naming each field. */
export async function readJson<T>(c: Context, schema: z.ZodType<T>, what = 'request body'): Promise<T> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ValidationError(
      `The ${what} is not valid JSON (${err instanceof Error ? err.message : 'parse error'}); send a JSON object with Content-Type: application/json.`,
      [{ path: '(root)', message: 'invalid JSON' }],
    );
  }
  return parseOrThrow(schema, value, what);
}

/** The query string checked against `schema` (single values only). */
export function readQuery<T>(c: Context, schema: z.ZodType<T>): T {
  return parseOrThrow(schema, c.req.query(), 'query string', 'query');
}
