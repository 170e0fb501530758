// Figures of a run, kept for docs/reliability.md when INTERLOCK_RELIABILITY_OUT
// names a folder (`npm run test:chaos` sets it); otherwise only printed as test diagnostics.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How many faults, and for how long: the small defaults run in `npm test`, the heavy ones in `npm run test:chaos`. */
export const SCALE = {
  kills: Number(process.env.INTERLOCK_CHAOS_KILLS ?? 5),
  loadSeconds: Number(process.env.INTERLOCK_LOAD_SECONDS ?? 10),
  pgRestarts: Number(process.env.INTERLOCK_PG_RESTARTS ?? 3),
  heavy: process.env.INTERLOCK_CHAOS === '1',
};

/** Write `data` as `<name>.json` into INTERLOCK_RELIABILITY_OUT, if set. */
export function recordResult(name: string, data: unknown): void {
  const dir = process.env.INTERLOCK_RELIABILITY_OUT;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${name}.json`),
    `${JSON.stringify({ at: new Date().toISOString(), ...(data as object) }, null, 2)}\n`,
  );
}
