import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresBackend, TEST_DATABASE_URL, type BackendInitializer } from '../../src/testing/backends.ts';
import { startFaultProxy, type FaultProxy } from '../../src/testing/fault-proxy.ts';
import { describeReport, runCrashHarness, summarize } from './crash-harness.ts';
import { recordResult, SCALE } from './results.ts';

// PostgreSQL behind a network that stops answering, under traffic: a TCP proxy
// between the service and the database accepts connections and then forwards
// nothing (no reset, no close), as a partition or a vanished peer does. The
// service must answer coded 503s (store_unavailable) instead of hanging or
// failing with 500, recover by itself when the network does, and lose nothing.
// npm test: one 3 s blackhole; test:chaos: two of 120 s (INTERLOCK_BLACKHOLE_MS).
const HOLE_MS = Number(process.env.INTERLOCK_BLACKHOLE_MS ?? (SCALE.heavy ? 120_000 : 3000));
const HOLES = SCALE.heavy ? 2 : 1;

/** `backend`, but the service (and the CLI) reach the database through `proxy`, with short deadlines. */
function throughProxy(backend: BackendInitializer, proxy: FaultProxy): BackendInitializer {
  return {
    name: backend.name,
    create: (id) => backend.create(id),
    destroy: () => backend.destroy(),
    env() {
      const env = backend.env();
      const url = new URL(env.DATABASE_URL!);
      url.hostname = proxy.host;
      url.port = String(proxy.port);
      return {
        ...env,
        DATABASE_URL: url.toString(),
        INTERLOCK_PG_CONNECT_TIMEOUT_MS: '500',
        INTERLOCK_PG_STATEMENT_TIMEOUT_MS: '1000',
        INTERLOCK_PG_KEEPALIVE_MS: '1000',
        // The server keeps a cut-off session's transaction (and its row locks) until this deadline:
        // the proxy holds the server's side of the connection open, as a partition does.
        INTERLOCK_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: '2000',
      };
    },
  };
}

describe('PostgreSQL unreachable (network blackhole) mid-run', () => {
  it(
    `answers coded 503s through ${HOLES} blackhole(s) of ${HOLE_MS / 1000} s, recovers by itself, loses nothing`,
    { timeout: 120_000 + HOLES * HOLE_MS * 2 },
    async (t) => {
      const backend = postgresBackend();
      const direct = new URL(TEST_DATABASE_URL);
      const proxy = await startFaultProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const acceptedAfterHole: number[] = [];
      try {
        const report = await runCrashHarness({
          backend: throughProxy(backend, proxy),
          faults: HOLES,
          upMs: [2000, 3000],
          threadsPerSecond: 6,
          fault: async ({ traffic }) => {
            proxy.blackhole();
            await new Promise((r) => setTimeout(r, HOLE_MS));
            proxy.forward();
            acceptedAfterHole.push(traffic.threadsAccepted);
          },
          log: (l) => t.diagnostic(l),
        });
        for (const line of describeReport(report)) t.diagnostic(line);
        recordResult('pg-blackhole', { holeMs: HOLE_MS, ...summarize(report) });
        const tail = `\n--- service output (tail) ---\n${report.serviceOutput.slice(-3000)}`;
        assert.deepEqual(report.violations, [], `invariants broken (seed ${report.seed}):${tail}`);
        assert.equal(report.starts, 1, 'the service was never restarted: it recovered by itself');
        assert.match(report.serviceOutput, /store unavailable/, 'requests during the blackhole were refused as such');
        assert.doesNotMatch(report.serviceOutput, /unexpected error/, `no request failed with 500 internal${tail}`);
        assert.ok(
          report.traffic.threadsAccepted > acceptedAfterHole.at(-1)!,
          'threads were accepted again after the last blackhole',
        );
      } finally {
        await proxy.close();
        await backend.destroy();
      }
    },
  );
});
