import { ConfigError } from '../core/index.ts';

/** A whole number of ms from the option, else the environment variable, else the default. */
export function wholeMs(where: string, given: number | undefined, env: string, fallback: number, key: string): number {
  const raw = process.env[env];
  const v = given ?? (raw === undefined || raw === '' ? fallback : Number(raw));
  if (!Number.isInteger(v) || v < 0)
    throw new ConfigError(
      `${where}: ${given === undefined ? `the environment variable ${env}` : `"${key}"`} must be a whole number of milliseconds, 0 or more (default ${fallback}), not ${String(given ?? raw)}.`,
    );
  return v;
}
