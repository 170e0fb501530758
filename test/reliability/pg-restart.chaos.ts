import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync } from 'node:fs';
import { postgresBackend } from '../../src/testing/backends.ts';
import { describeReport, runCrashHarness, summarize } from './crash-harness.ts';
import { recordResult, SCALE } from './results.ts';

// PostgreSQL restarted in the middle of a run, under traffic, while the
// service keeps running: it must reconnect and carry on, and lose nothing.
// Restarting the shared server breaks every other test using it at that
// moment, so this file is not named *.test.ts: only `npm run test:chaos` runs
// it (one file at a time). The restart command is INTERLOCK_PG_RESTART_CMD, else
// `pg_ctlcluster --skip-systemctl-redirect <version> main restart`.
// Asynchronous on purpose: the traffic runs in this process and must keep hitting the service during the restart.
async function restartPostgres(): Promise<void> {
  const custom = process.env.INTERLOCK_PG_RESTART_CMD;
  const [cmd, ...args] = custom
    ? ['sh', '-c', custom]
    : ['pg_ctlcluster', '--skip-systemctl-redirect', readdirSync('/etc/postgresql')[0] ?? '15', 'main', 'restart'];
  try {
    await promisify(execFile)(cmd, args);
  } catch (err) {
    throw new Error(
      `restarting PostgreSQL failed: ${(err as Error).message}. Set INTERLOCK_PG_RESTART_CMD to the command that restarts your server.`,
      { cause: err },
    );
  }
}

describe('PostgreSQL restarted mid-run', () => {
  it(
    `the service reconnects after ${SCALE.pgRestarts} restarts and carries on; nothing lost`,
    { timeout: 600_000 },
    async (t) => {
      const backend = postgresBackend();
      const acceptedBefore: number[] = [];
      try {
        const report = await runCrashHarness({
          backend,
          faults: SCALE.pgRestarts,
          upMs: [3000, 6000],
          threadsPerSecond: 8,
          fault: async ({ traffic }) => {
            acceptedBefore.push(traffic.threadsAccepted);
            await restartPostgres();
          },
          log: (l) => t.diagnostic(l),
        });
        for (const line of describeReport(report)) t.diagnostic(line);
        recordResult('pg-restart', summarize(report));
        assert.deepEqual(
          report.violations,
          [],
          `invariants broken (seed ${report.seed}):\n${describeReport(report).join('\n')}\n--- service output (tail) ---\n${report.serviceOutput.slice(-3000)}`,
        );
        assert.equal(report.starts, 1, 'the service was never restarted: it reconnected by itself');
        assert.ok(
          report.traffic.threadsAccepted > acceptedBefore.at(-1)!,
          'threads were accepted after the last restart',
        );
      } finally {
        await backend.destroy();
      }
    },
  );
});
