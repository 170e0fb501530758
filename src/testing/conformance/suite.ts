import { after, before, describe } from 'node:test';
import { createInterlock } from '../../engine/index.ts';
import { allBackends, type BackendInitializer } from '../backends.ts';
import { suiteContext } from './context.ts';
import { crashScenarios } from './scenarios-crash.ts';
import { stateScenarios, wiringScenarios } from './scenarios-state.ts';
import { gateScenarios, verbScenarios } from './scenarios-verbs.ts';
import { CONFORMANCE_POLICY, type IntegrationDriver } from './world.ts';

/** Options of {@link integrationConformance}. */
export interface ConformanceOptions {
  /** The databases to run on (default: SQLite and PostgreSQL, {@link allBackends}). */
  backends?: BackendInitializer[];
}

/**
 * The integration conformance suite: the same scenarios — the four verbs, an edit that raises the
 * tier, block, a quorum, two calls under one id, parallel calls settled independently, resume in
 * another engine, crashes and process deaths, planted checks, altered, swapped and forged state,
 * trust, a wiring mistake, a sub-agent — against one integration, on each database. Register it in a
 * test file; every scenario is a `node:test` test.
 *
 * @example
 * import { integrationConformance } from 'interlock-approvals/testing';
 * integrationConformance({ name: 'my-framework', retry: 'resume', create: (world) => createMyAgent(world) });
 */
export function integrationConformance(driver: IntegrationDriver, opts: ConformanceOptions = {}): void {
  for (const backend of opts.backends ?? allBackends()) {
    describe(`conformance: ${driver.name} on ${backend.name}`, () => {
      const c = suiteContext(driver, backend);
      before(async () => {
        c.store = await backend.create();
        c.il = createInterlock({ store: c.store, policy: CONFORMANCE_POLICY });
        c.world = c.worldOf(c.il, c.store);
        c.agent = c.threadsOf(await driver.create(c.world));
      });
      after(() => backend.destroy());
      verbScenarios(c);
      gateScenarios(c);
      crashScenarios(c);
      stateScenarios(c);
      wiringScenarios(c);
    });
  }
}
