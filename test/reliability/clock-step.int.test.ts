import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { allBackends } from '../../src/testing/backends.ts';
import type { Store } from '../../src/store/types.ts';
import { describeReport, runCrashHarness, summarize } from './crash-harness.ts';
import { recordResult } from './results.ts';

// The service's wall clock runs 10 minutes ahead and is stepped back to the true time mid-run, under
// traffic (an NTP correction). Before the fix the sweeper stopped for the length of the step and the
// decision rate limiter refused every reviewer active before it with 429. Now: no reviewer is refused,
// requests created after the step get their timeout defaults on time, every invariant holds, and
// `audit verify` passes with no time running backwards along the log.
const CLOCK_STEP = fileURLToPath(new URL('./fixtures/clock-step.ts', import.meta.url));
const STEP_MS = 10 * 60_000;

/** The last log position now: events after it were written after the step. */
async function lastAuditSeq(store: Store): Promise<number> {
  const [row] = await store.unsafeQuery('SELECT COALESCE(MAX(seq), 0) AS m FROM il_audit');
  return Number(row?.m ?? 0);
}

for (const backend of allBackends()) {
  describe(`a wall clock stepped back 10 minutes mid-run on ${backend.name}`, () => {
    it('refuses no reviewer, keeps applying timeout defaults, loses nothing', { timeout: 180_000 }, async (t) => {
      let stepSeq = 0;
      let probe: Store | undefined;
      const afterStep: string[] = [];
      const report = await runCrashHarness({
        backend: {
          ...backend,
          env: () => ({ ...backend.env(), INTERLOCK_TEST_CLOCK_OFFSET_MS: String(STEP_MS) }),
        },
        faults: 1,
        upMs: [5000, 5000],
        threadsPerSecond: 10,
        nodeArgs: ['--import', CLOCK_STEP],
        fault: async ({ service, propose }) => {
          probe ??= await backend.create();
          stepSeq = await lastAuditSeq(probe);
          process.kill(service.pid!, 'SIGUSR2');
          // One refund in each 2 s lapse band, proposed once the step is in: the sweeper must apply their
          // timeout defaults on time (before the fix it stopped for the step's 10 minutes).
          await sleep(200);
          afterStep.push(...(await Promise.all([350, 450].map((amount) => propose(amount)))));
        },
        log: (l) => t.diagnostic(l),
      });
      for (const line of describeReport(report)) t.diagnostic(line);
      recordResult(`clock-step-${backend.name}`, { stepMs: STEP_MS, ...summarize(report) });
      const tail = `\n--- service output (tail) ---\n${report.serviceOutput.slice(-3000)}`;
      try {
        assert.deepEqual(report.violations, [], `invariants broken (seed ${report.seed}):${tail}`);
        assert.equal(report.traffic.decisionsRefused.rate_limited, undefined, 'no reviewer was refused with 429');
        // The two lapse-band refunds proposed after the step got their timeout defaults: the sweeper kept
        // its cadence.
        const rows = await probe!.unsafeQuery(
          `SELECT r.thread_id, r.rule_id, r.status, e.seq AS expired_seq FROM il_requests r
             LEFT JOIN il_audit e ON e.request_id = r.id AND e.type = 'expired'
            WHERE r.thread_id IN ($1, $2) ORDER BY r.thread_id`,
          [afterStep[0], afterStep[1]],
        );
        assert.equal(
          rows.length,
          2,
          `both lapse-band threads proposed after the step paused: ${JSON.stringify(rows)}${tail}`,
        );
        for (const r of rows) {
          assert.ok(
            Number(r.expired_seq) > stepSeq,
            `no timeout default was applied to ${String(r.thread_id)} (${String(r.rule_id)}, ${String(r.status)}), proposed after the step${tail}`,
          );
        }
        // Every time is the store's clock: the database's on PostgreSQL (src/store/postgres/clock.ts), the
        // process's counted on the monotonic clock on SQLite (src/store/sqlite/clock.ts). The step moves none.
        assert.doesNotMatch(
          report.auditVerify.output,
          /note: \d+ event\(s\) carry a time earlier than the event before them/,
        );
      } finally {
        await backend.destroy();
      }
    });
  });
}
