/**
 * `interlock-approvals/server`: the HTTP API, the reviewer web UI and the whole service
 * (API + UI + worker + notifications), as `interlock serve` runs it.
 * @example
 * import { startService } from 'interlock-approvals/server';
 * const svc = await startService({ config: './interlock.config.ts' });
 */
export * from './server/index.ts';
export * from './web/index.ts';
export * from './service/index.ts';
