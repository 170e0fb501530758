import { ConfigError } from '../core/index.ts';
import type { BatchPreselect } from './batch-types.ts';

/** The values `preselectUpTo` takes: the highest tier a batch page may tick before the reviewer does. */
export const BATCH_PRESELECT = ['none', 'approve'] as const satisfies readonly BatchPreselect[];

/** Options of batch review (`createWebUi({ batch })`). */
export interface BatchOptions {
  /**
   * Which requests a batch page ticks when it opens. `none` (default): nothing — the reviewer ticks
   * each request on purpose. `approve`: `approve`-tier requests that carry no warning (no duplicate,
   * no other request on the same order or customer in the page, no hidden or look-alike characters).
   * Escalate-tier requests are never ticked for the reviewer.
   */
  preselectUpTo?: BatchPreselect;
}

/** The environment variable the service reads {@link BatchOptions.preselectUpTo} from. */
export const PRESELECT_ENV = 'INTERLOCK_BATCH_PRESELECT_UP_TO';

/** Options checked when the UI is created, before anything is served: a typo must not tick things. */
export function checkBatchOptions(o: BatchOptions | undefined): Required<BatchOptions> {
  const v = o?.preselectUpTo ?? 'none';
  if (!(BATCH_PRESELECT as readonly string[]).includes(v))
    throw new ConfigError(
      `createWebUi: batch.preselectUpTo must be one of ${BATCH_PRESELECT.join(', ')}, not "${String(v)}". "none" ticks nothing; "approve" ticks approve-tier requests without warnings; escalate-tier requests are never ticked for the reviewer.`,
    );
  return { preselectUpTo: v };
}

/**
 * Batch options from the environment (`INTERLOCK_BATCH_PRESELECT_UP_TO=none|approve`); unset gives
 * the default. A value that is not one of those is refused with a message naming the variable.
 * @example
 * createWebUi({ batch: batchOptionsFromEnv(process.env) })
 */
export function batchOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): BatchOptions {
  const raw = env[PRESELECT_ENV];
  if (raw === undefined || raw === '') return {};
  if (!(BATCH_PRESELECT as readonly string[]).includes(raw))
    throw new ConfigError(
      `${PRESELECT_ENV} must be one of ${BATCH_PRESELECT.join(', ')}, not "${raw}". "none" (the default) ticks nothing on a batch page; "approve" ticks approve-tier requests without warnings.`,
    );
  return { preselectUpTo: raw as BatchPreselect };
}
