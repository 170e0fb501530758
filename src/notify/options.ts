import type { z } from 'zod';
import { ConfigError } from '../core/index.ts';

/**
 * Validate options with a zod schema, before anything is created. Every issue
 * is listed with its path, under a first line that says which factory and
 * what it needs.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, what: string, hint: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.map(String).join('.') || '(options)'}: ${i.message}`);
  throw new ConfigError(`Invalid ${what} options; ${hint}\n  ${issues.join('\n  ')}`, { issues });
}

/** True when `v` parses as an http or https URL. */
export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}
