// The crash harness: a real `interlock serve` process under a steady stream of
// threads and decisions over HTTP, SIGKILLed at random moments and started
// again on the same port and database. Tools call a fake payment API that
// dedupes by idempotency key and records every effect. After the run the
// service is left to finish what it holds, then every invariant is checked.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BackendInitializer } from '../../src/testing/backends.ts';
import { startFakePaymentsServer, type FakePaymentsServer } from '../../src/testing/fake-payments-server.ts';
import { CLI_PATH, serviceProcess, type ServiceProcess } from '../../src/testing/service-process.ts';
import { createReviewer } from '../../src/server/index.ts';
import type { Store } from '../../src/store/types.ts';
import { checkInvariants, waitUntilQuiet, type RunFigures } from './invariants.ts';
import { seededRandom, startTraffic, type ReviewerCredential, type Traffic, type TrafficStats } from './traffic.ts';

/** The deployment every reliability test runs. */
export const CHAOS_CONFIG = fileURLToPath(new URL('./fixtures/chaos.config.ts', import.meta.url));

/** A fault injected between two quiet periods: a SIGKILL of the service by default. */
export type Fault = (ctx: {
  service: ServiceProcess;
  n: number;
  traffic: TrafficStats;
  /** Start one more thread now, for a refund of `amount`; resolves to its id once the service answered. */
  propose: (amount: number) => Promise<string>;
}) => Promise<void>;

/** Options of {@link runCrashHarness}. */
export interface CrashHarnessOptions {
  backend: BackendInitializer;
  /** Faults to inject (SIGKILLs by default). */
  faults: number;
  /** How long the service runs between two faults: uniform in [min, max] ms. */
  upMs: [number, number];
  /** New threads per second. */
  threadsPerSecond: number;
  /** Seed of the random choices (amounts, decisions, kill moments); printed in the report. */
  seed?: number;
  /** The fault; default: SIGKILL the service, wait a moment, start it again. */
  fault?: Fault;
  /** Job and thread leases of the service (default 1000 ms): how soon a killed process's work moves on. */
  leaseMs?: number;
  /** Delay before and after each payment call (default 60 ms): widens the window a kill can land in. */
  toolDelayMs?: number;
  /** How long the service may take to finish its work after the traffic stops (default 60 s). */
  settleMs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Called once the service first runs; the function it returns is called when the traffic stops (e.g. memory sampling). */
  monitor?: (service: ServiceProcess) => () => void;
  /** Options for the service's Node (e.g. a preloaded probe). */
  nodeArgs?: string[];
}

/** What a run did and found. */
export interface CrashReport {
  backend: string;
  seed: number;
  faults: number;
  starts: number;
  durationMs: number;
  traffic: TrafficStats;
  figures: RunFigures & { executionsTakenOver: number; jobsRetried: number };
  violations: string[];
  auditVerify: { exitCode: number | null; output: string };
  /** Exit code of the final graceful stop (SIGTERM). */
  stopExitCode: number | null;
  /** Everything the service printed, across all its starts. */
  serviceOutput: string;
}

/** The reviewers of a run: one operator, four supervisors, three finance reviewers (tokens from the store, hashed). */
export async function createRunReviewers(
  store: Store,
): Promise<{ operator: ReviewerCredential; reviewers: ReviewerCredential[] }> {
  const make = async (name: string, roles: string[]): Promise<ReviewerCredential> => {
    const { reviewer, token } = await createReviewer(store, { name, roles });
    return { id: reviewer.id, token, roles };
  };
  const operator = await make('Olga Operator', ['operator']);
  const reviewers: ReviewerCredential[] = [];
  for (const n of ['Sam', 'Sue', 'Sid', 'Sol']) reviewers.push(await make(`${n} Supervisor`, ['supervisor']));
  for (const n of ['Fay', 'Fin', 'Flo']) reviewers.push(await make(`${n} Finance`, ['finance']));
  return { operator, reviewers };
}

/** Run `interlock <args>` against the run's database; resolves with the exit code and output. */
export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI_PATH, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    c.stdout.on('data', (d: Buffer) => (output += d.toString()));
    c.stderr.on('data', (d: Buffer) => (output += d.toString()));
    c.on('exit', (code) => resolve({ exitCode: code, output }));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Drive the service through `faults` faults under steady traffic, let it
 * settle, and check every invariant. Never throws for a violation: the report
 * lists them, so a test can print the figures before it fails.
 */
export async function runCrashHarness(o: CrashHarnessOptions): Promise<CrashReport> {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rnd = seededRandom(seed ^ 0x5eed);
  const log = o.log ?? (() => undefined);
  const began = Date.now();
  const store = await o.backend.create();
  let payments: FakePaymentsServer | undefined;
  let service: ServiceProcess | undefined;
  let traffic: Traffic | undefined;
  try {
    payments = await startFakePaymentsServer();
    const { operator, reviewers } = await createRunReviewers(store);
    const env = {
      ...o.backend.env(),
      PAYMENTS_URL: payments.url,
      INTERLOCK_LEASE_MS: String(o.leaseMs ?? 1000),
      TOOL_DELAY_MS: String(o.toolDelayMs ?? 60),
    };
    service = await serviceProcess({ config: CHAOS_CONFIG, env, ...(o.nodeArgs ? { nodeArgs: o.nodeArgs } : {}) });
    await service.start();
    const endMonitor = o.monitor?.(service);
    traffic = startTraffic({
      url: service.url,
      operatorToken: operator.token,
      reviewers,
      threadsPerSecond: o.threadsPerSecond,
      prefix: `chaos-${o.backend.name}-${seed}`,
      seed,
    });
    const svc = service;
    const started = traffic;
    const fault: Fault =
      o.fault ??
      (async ({ service: s }) => {
        await s.kill();
        await sleep(rnd() * 300); // down for a moment: clients see refused connections
        await s.start();
      });
    for (let n = 1; n <= o.faults; n++) {
      await sleep(o.upMs[0] + rnd() * (o.upMs[1] - o.upMs[0]));
      await fault({ service: svc, n, traffic: traffic.stats, propose: (amount) => started.propose(amount) });
      log(
        `${o.backend.name}: fault ${n}/${o.faults} (threads ${traffic.stats.threadsAccepted}, decisions ${traffic.stats.decisionsAccepted}, payments ${payments.applied.length})`,
      );
    }
    // The last stretch runs without faults, then the traffic stops and the service finishes its work.
    await sleep(o.upMs[0]);
    await traffic.stop();
    endMonitor?.();
    const quiet = await waitUntilQuiet(store, o.settleMs ?? 60_000);
    const executions = (await store.unsafeQuery('SELECT attempts FROM il_executions')).map((r) => Number(r.attempts));
    const jobs = (await store.unsafeQuery(`SELECT attempts FROM il_jobs WHERE kind = 'resume'`)).map((r) =>
      Number(r.attempts),
    );
    const checked = await checkInvariants({ store, payments, threads: traffic.threads, decisions: traffic.decisions });
    if (!quiet)
      checked.violations.unshift(
        `the service did not settle within ${o.settleMs ?? 60_000} ms after the traffic stopped`,
      );
    const stopExitCode = await service.stop();
    const auditVerify = await runCli(['audit', 'verify'], o.backend.env());
    if (auditVerify.exitCode !== 0)
      checked.violations.push(`interlock audit verify exited ${auditVerify.exitCode}: ${auditVerify.output.trim()}`);
    if (stopExitCode !== 0) checked.violations.push(`the graceful stop exited ${stopExitCode}`);
    return {
      backend: o.backend.name,
      seed,
      faults: o.faults,
      starts: service.starts,
      durationMs: Date.now() - began,
      traffic: traffic.stats,
      figures: {
        ...checked.figures,
        executionsTakenOver: executions.filter((a) => a > 1).length,
        jobsRetried: jobs.filter((a) => a > 1).length,
      },
      violations: checked.violations,
      auditVerify,
      stopExitCode,
      serviceOutput: service.output,
    };
  } finally {
    await traffic?.stop();
    await service?.kill();
    await payments?.close();
  }
}

/** The `q` quantile of `xs` (0..1), rounded to ms; '-' when empty. */
export function pct(xs: readonly number[], q: number): string {
  if (xs.length === 0) return '-';
  const sorted = [...xs].sort((a, b) => a - b);
  return String(Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!));
}

/** One line per figure, for test diagnostics and docs/reliability.md. */
export function describeReport(r: CrashReport): string[] {
  const f = r.figures;
  const t = r.traffic;
  return [
    `${r.backend}: ${r.faults} faults survived (${r.starts} starts) in ${(r.durationMs / 1000).toFixed(1)} s, seed ${r.seed}`,
    `threads: ${t.threadPosts} posted, ${t.threadsAccepted} acknowledged (p50 ${pct(t.latencyMs.thread, 0.5)} ms, p99 ${pct(t.latencyMs.thread, 0.99)} ms), ${t.threadsUnknown} with an unknown outcome (connection cut or 5xx), ${t.threadsNotDelivered} refused while down; in the database ${f.threads} (${f.threadsCompleted} completed, ${f.threadsWaiting} waiting for a person)`,
    `requests: ${f.requests} ${JSON.stringify(f.requestsByStatus)}`,
    `decisions: ${t.decisionPosts} posted, ${t.decisionsAccepted} acknowledged ${JSON.stringify(t.decisionsByType)} (p50 ${pct(t.latencyMs.decision, 0.5)} ms, p99 ${pct(t.latencyMs.decision, 0.99)} ms), refused ${JSON.stringify(t.decisionsRefused)}, ${t.decisionsUnknown} with an unknown outcome; ${f.decisionsRecorded} recorded, ${f.timeoutDefaultsApplied} timeout defaults applied`,
    `executions: ${f.executions} (${f.autoExecutions} auto), ${f.paymentsApplied} payments applied, ${f.paymentRetriesDeduped} retries deduped by key, ${f.executionsTakenOver} taken over after a crash, ${f.jobsRetried} resume jobs retried`,
    `double executions: ${f.doubleExecutions}; executed without a decision: ${f.executedWithoutDecision}; lost: ${f.lost}; audit: ${f.auditEvents} events, verify exit ${r.auditVerify.exitCode}`,
    ...(r.violations.length ? [`VIOLATIONS (${r.violations.length}):`, ...r.violations.map((v) => `  ${v}`)] : []),
  ];
}

/** The report without the bulky parts (service output, every latency), with latency quantiles: what results files keep. */
export function summarize(r: CrashReport): Record<string, unknown> {
  const { serviceOutput: _out, traffic, ...rest } = r;
  const { latencyMs, ...counts } = traffic;
  return {
    ...rest,
    traffic: {
      ...counts,
      latencyMs: {
        thread: { p50: pct(latencyMs.thread, 0.5), p99: pct(latencyMs.thread, 0.99) },
        decision: { p50: pct(latencyMs.decision, 0.5), p99: pct(latencyMs.decision, 0.99) },
      },
    },
  };
}
