import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pct } from './crash-harness.ts';
import { runReplicas, type ReplicasReport } from './replicas-harness.ts';
import { recordResult, SCALE } from './results.ts';

// Three `interlock serve` replicas on one PostgreSQL behind a round-robin proxy (replicas-harness.ts).
// `npm test` runs 12 s of traffic with one kill; `npm run test:chaos` runs 120 s with 5.
const SECONDS = SCALE.heavy ? 120 : 12;
const KILLS = SCALE.heavy ? 5 : 1;
const HOUR = 3_600_000;

function describeRun(r: ReplicasReport): string[] {
  const f = r.figures;
  const t = r.traffic;
  return [
    `seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s; proxy forwarded ${f.proxyForwarded.join('/')} requests, skipped ${f.proxyRefused} refused connections`,
    `threads: ${t.threadsAccepted} acknowledged (p50 ${pct(t.latencyMs.thread, 0.5)} ms, p99 ${pct(t.latencyMs.thread, 0.99)} ms), ${t.threadsUnknown} unknown; decisions: ${t.decisionsAccepted} acknowledged, refused ${JSON.stringify(t.decisionsRefused)}`,
    `requests ${f.requests} ${JSON.stringify(f.requestsByStatus)}; ${f.timeoutDefaultsApplied} timeout defaults applied`,
    `notifications: ${f.notifications} sent, ${f.notificationsRedelivered} requests notified twice, ${f.notificationsSkipped} not sent (decided or expired first); live events: ${f.liveEventsChecked} checked on ${f.eventStreamsKept} streams that stayed open`,
    `clock offsets from the database (ms, database minus replica): ${f.clockOffsetsMs.join(', ')}`,
    `executions ${f.executions}, payments ${f.paymentsApplied}, ${f.paymentCallsRepeated} repeated payment calls, ${f.executionsTakenOver} taken over; double ${f.doubleExecutions}, lost ${f.lost}; audit verify exit ${r.auditVerify.exitCode}`,
    ...r.violations.map((v) => `VIOLATION ${v}`),
  ];
}

describe('three service replicas on one PostgreSQL behind a round-robin proxy', () => {
  it(
    `hold every invariant under load with ${KILLS} replica(s) killed and restarted`,
    { timeout: 600_000 },
    async (t) => {
      const r = await runReplicas({
        seconds: SECONDS,
        kills: KILLS,
        skewMs: 0,
        threadsPerSecond: 6,
        log: (l) => t.diagnostic(l),
      });
      for (const line of describeRun(r)) t.diagnostic(line);
      recordResult('replicas-kill', { ...r, output: undefined, traffic: { ...r.traffic, latencyMs: undefined } });
      assert.deepEqual(r.violations, [], `invariants broken (seed ${r.seed}):\n${r.output}`);
      assert.ok(
        r.figures.paymentCallsRepeated <= r.figures.executionsTakenOver,
        'a key reached the payment API again without its execution being taken over from a killed replica',
      );
    },
  );

  it("hold every invariant with one replica's clock an hour ahead", { timeout: 600_000 }, async (t) => {
    const r = await runReplicas({
      seconds: SECONDS,
      kills: 0,
      skewMs: HOUR,
      threadsPerSecond: 6,
      log: (l) => t.diagnostic(l),
    });
    for (const line of describeRun(r)) t.diagnostic(line);
    recordResult('replicas-skew', { ...r, output: undefined, traffic: { ...r.traffic, latencyMs: undefined } });
    assert.deepEqual(r.violations, [], `invariants broken (seed ${r.seed}):\n${r.output}`);
    // The skew was in force: the third replica measured its clock an hour ahead of the database's.
    assert.ok(
      Math.abs(r.figures.clockOffsetsMs[2] ?? 0) > HOUR / 2,
      `the skewed replica reports its clock ${r.figures.clockOffsetsMs[2]} ms off, not about an hour`,
    );
    // Nobody died: a live execution taken over, or a key paid twice, is the skewed replica's doing.
    assert.equal(r.figures.executionsTakenOver, 0, 'no execution was taken over from a live replica');
    assert.equal(r.figures.paymentCallsRepeated, 0, 'the payment API saw each idempotency key once');
  });
});
