import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../../src/testing/backends.ts';
import { describeReport, runCrashHarness, summarize } from './crash-harness.ts';
import { recordResult, SCALE } from './results.ts';

// SIGKILL the service at random moments under steady traffic, restart it, and
// check nothing was lost, run twice, or run without a decision. `npm test` runs
// 5 kills per backend; `npm run test:chaos` runs INTERLOCK_CHAOS_KILLS (50).
for (const backend of allBackends()) {
  describe(`crash harness on ${backend.name}`, () => {
    after(() => backend.destroy());

    it(
      `survives ${SCALE.kills} SIGKILLs under load: every action once, none without a decision, nothing lost`,
      { timeout: 120_000 + SCALE.kills * 15_000 },
      async (t) => {
        const report = await runCrashHarness({
          backend,
          faults: SCALE.kills,
          upMs: [800, 2500],
          threadsPerSecond: 8,
          ...(process.env.INTERLOCK_CHAOS_SEED ? { seed: Number(process.env.INTERLOCK_CHAOS_SEED) } : {}),
        });
        for (const line of describeReport(report)) t.diagnostic(line);
        recordResult(`crash-${backend.name}`, summarize(report));
        assert.deepEqual(
          report.violations,
          [],
          `invariants broken (seed ${report.seed}):\n${describeReport(report).join('\n')}\n--- service output (tail) ---\n${report.serviceOutput.slice(-3000)}`,
        );
        assert.equal(report.starts, SCALE.kills + 1, 'the service was killed and restarted each time');
        assert.ok(report.figures.paymentsApplied > 0 && report.traffic.decisionsAccepted > 0, 'the run did real work');
        assert.equal(report.figures.doubleExecutions, 0);
        assert.equal(report.figures.lost, 0);
      },
    );
  });
}
