// Three `interlock serve` replicas on one PostgreSQL database behind a round-robin proxy, under the
// reliability traffic; one replica may run with its wall clock skewed, and replicas are SIGKILLed and
// started again at random. After the run every invariant of invariants.ts is checked, plus what only
// several replicas can break: live events reach reviewers on every replica, each request is notified
// once, each timeout default is applied once and never early, no live execution is taken over.
import { fileURLToPath } from 'node:url';
import { postgresBackend } from '../../src/testing/backends.ts';
import { startFakePaymentsServer, type FakePaymentsServer } from '../../src/testing/fake-payments-server.ts';
import { startFakeHttpServer, type FakeHttpServer } from '../../src/testing/fake-http.ts';
import { serviceProcess, type ServiceProcess } from '../../src/testing/service-process.ts';
import type { Store } from '../../src/store/types.ts';
import { createRunReviewers, runCli } from './crash-harness.ts';
import { BANDS } from './fixtures/chaos.config.ts';
import { checkInvariants, waitUntilQuiet, type RunFigures } from './invariants.ts';
import { startRoundRobinProxy, watchEvents, type EventWatcher, type RoundRobinProxy } from './replicas-proxy.ts';
import { seededRandom, startTraffic, type Traffic, type TrafficStats } from './traffic.ts';

const CONFIG = fileURLToPath(new URL('./fixtures/replicas.config.ts', import.meta.url));
const CLOCK = fileURLToPath(new URL('./fixtures/clock-step.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Options of {@link runReplicas}. */
export interface ReplicasOptions {
  /** Seconds of traffic. */
  seconds: number;
  /** SIGKILL + restart of the second or third replica (at random), at random moments during the traffic. */
  kills: number;
  /** Wall clock offset of the third replica (0: none). */
  skewMs: number;
  threadsPerSecond: number;
  seed?: number;
  log?: (line: string) => void;
}

/** What a run did and found. */
export interface ReplicasReport {
  seed: number;
  durationMs: number;
  traffic: TrafficStats;
  figures: RunFigures & {
    executionsTakenOver: number;
    paymentCallsRepeated: number;
    notifications: number;
    notificationsRedelivered: number;
    /** Requests decided or expired before their notification ran, so rightly not sent. */
    notificationsSkipped: number;
    eventStreamsKept: number;
    liveEventsChecked: number;
    proxyForwarded: number[];
    proxyRefused: number;
    /** Each replica's offset from the database's clock, from its /readyz (null: not reported). */
    clockOffsetsMs: (number | null)[];
  };
  violations: string[];
  auditVerify: { exitCode: number | null; output: string };
  output: string;
}

interface Run {
  store: Store;
  payments: FakePaymentsServer;
  hook: FakeHttpServer;
  replicas: ServiceProcess[];
  proxy: RoundRobinProxy;
  watchers: EventWatcher[];
  traffic: Traffic;
}

/** Run the three replicas through `o`; never throws for a violation (the report lists them). */
export async function runReplicas(o: ReplicasOptions): Promise<ReplicasReport> {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rnd = seededRandom(seed ^ 0x7e11ca);
  const log = o.log ?? (() => undefined);
  const began = Date.now();
  const backend = postgresBackend();
  const parts: Partial<Run> = {};
  try {
    const store = (parts.store = await backend.create());
    const payments = (parts.payments = await startFakePaymentsServer());
    const hook = (parts.hook = await startFakeHttpServer());
    const { operator, reviewers } = await createRunReviewers(store);
    const env = {
      ...backend.env(),
      PAYMENTS_URL: payments.url,
      WEBHOOK_URL: hook.url,
      TOOL_DELAY_MS: '60',
      INTERLOCK_LEASE_MS: '5000',
    };
    const replicas: ServiceProcess[] = (parts.replicas = []);
    for (let i = 0; i < 3; i++) {
      const skewed = i === 2 && o.skewMs !== 0;
      const r = await serviceProcess({
        config: CONFIG,
        env: { ...env, ...(skewed ? { INTERLOCK_TEST_CLOCK_OFFSET_MS: String(o.skewMs) } : {}) },
        ...(skewed ? { nodeArgs: ['--import', CLOCK] } : {}),
      });
      replicas.push(r);
      await r.start();
    }
    const proxy = (parts.proxy = await startRoundRobinProxy(replicas.map((r) => r.port)));
    // One stream straight to each replica, one through the proxy (it lands on whichever is next).
    const watchers: EventWatcher[] = (parts.watchers = []);
    for (const url of [...replicas.map((r) => r.url), proxy.url]) watchers.push(await watchEvents(url, operator.token));
    const traffic = (parts.traffic = startTraffic({
      url: proxy.url,
      operatorToken: operator.token,
      reviewers,
      threadsPerSecond: o.threadsPerSecond,
      prefix: `replicas-${seed}`,
      seed,
    }));
    const killAt = Array.from({ length: o.kills }, () => rnd() * o.seconds * 900).sort((a, b) => a - b);
    let elapsed = 0;
    for (const at of killAt) {
      await sleep(at - elapsed);
      elapsed = at;
      // The first replica is never killed: its event stream stays open from start to end, so it must
      // see every decision and expiry, whichever replica (restarted ones included) made it.
      const victim = replicas[1 + Math.floor(rnd() * (replicas.length - 1))]!;
      await victim.kill();
      await sleep(rnd() * 300);
      await victim.start();
      log(`killed and restarted replica :${victim.port} at ${(at / 1000).toFixed(1)} s`);
    }
    await sleep(o.seconds * 1000 - elapsed);
    await traffic.stop();
    return await settleAndCheck(parts as Run, { seed, began, env: backend.env() });
  } finally {
    await parts.traffic?.stop();
    for (const w of parts.watchers ?? []) w.close();
    await parts.proxy?.close();
    for (const r of parts.replicas ?? []) await r.kill();
    await parts.payments?.close();
    await parts.hook?.close();
    await backend.destroy();
  }
}

/** Wait for the replicas to finish their work and their notifications, then check everything. */
async function settleAndCheck(
  run: Run,
  ctx: { seed: number; began: number; env: Record<string, string> },
): Promise<ReplicasReport> {
  const { store, payments, traffic } = run;
  // Requests of the 2 s timeout bands still pending get their defaults first: waitUntilQuiet only
  // counts those already past their expiry, and one expiring a moment later would be checked mid-way.
  const lapsed = await waitFor(async () => {
    const [row] = await store.unsafeQuery(
      `SELECT COUNT(*) AS n FROM il_requests WHERE status = 'pending' AND expires_at <= $1`,
      [Date.now() + 60_000],
    );
    return Number(row?.n) === 0;
  }, 90_000);
  const quiet = lapsed && (await waitUntilQuiet(store, 90_000));
  // A notification claimed by a replica that was then killed waits for its lease (INTERLOCK_LEASE_MS) to run out.
  const notified = await waitFor(async () => {
    const [row] = await store.unsafeQuery(
      `SELECT COUNT(*) AS n FROM il_jobs WHERE kind = 'notify' AND status IN ('ready', 'running')`,
    );
    return Number(row?.n) === 0;
  }, 90_000);
  await sleep(1000); // the last events cross between replicas
  const checked = await checkInvariants({ store, payments, threads: traffic.threads, decisions: traffic.decisions });
  const v = checked.violations;
  if (!quiet) v.unshift('the replicas did not settle within 90 s after the traffic stopped');
  if (!notified) v.unshift('notifications were still outstanding 90 s after the traffic stopped');
  const extra = await replicaChecks(run, v);
  const clockOffsetsMs = await Promise.all(run.replicas.map((r) => clockOffset(r.url)));
  for (const r of run.replicas) {
    const code = await r.stop();
    if (code !== 0) v.push(`replica :${r.port} stopped with exit code ${code}`);
  }
  const auditVerify = await runCli(['audit', 'verify'], ctx.env);
  if (auditVerify.exitCode !== 0)
    v.push(`interlock audit verify exited ${auditVerify.exitCode}: ${auditVerify.output.trim()}`);
  return {
    seed: ctx.seed,
    durationMs: Date.now() - ctx.began,
    traffic: traffic.stats,
    figures: {
      ...checked.figures,
      ...extra,
      proxyForwarded: [...run.proxy.forwarded.values()],
      proxyRefused: run.proxy.refused,
      clockOffsetsMs,
    },
    violations: v,
    auditVerify,
    output: run.replicas.map((r) => `--- replica :${r.port} ---\n${r.output.slice(-2000)}`).join('\n'),
  };
}

/** The offset of a replica's clock from the database's, as its /readyz reports it. */
async function clockOffset(url: string): Promise<number | null> {
  const res = await fetch(`${url}/readyz`);
  const body = (await res.json()) as { clock?: { offsetMs: number | null } };
  return body.clock?.offsetMs ?? null;
}

async function waitFor(ok: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await ok()) return true;
    await sleep(200);
  }
  return false;
}

/**
 * Requests whose notification job completed without sending because the request could no longer be
 * decided: the job is done, no `notified` event was written, and before the job completed the request
 * was decided, or its expiry had passed (the sweeper may record it a moment after).
 */
async function skippedNotifications(store: Run['store']): Promise<Set<string>> {
  const rows = await store.unsafeQuery(
    `SELECT j.request_id FROM il_jobs j
      WHERE j.kind = 'notify' AND j.status = 'done'
        AND NOT EXISTS (SELECT 1 FROM il_audit a WHERE a.request_id = j.request_id AND a.type = 'notified')
        AND (EXISTS (SELECT 1 FROM il_requests r WHERE r.id = j.request_id AND r.expires_at <= j.updated_at)
          OR EXISTS (SELECT 1 FROM il_audit a WHERE a.request_id = j.request_id AND a.at <= j.updated_at
                      AND a.type IN ('approved', 'edited', 'rejected', 'responded', 'expired', 'escalated', 'cancelled')))`,
  );
  return new Set(rows.map((r) => String(r.request_id)));
}

/** The checks only several replicas can fail; violations go to `v`. */
async function replicaChecks(run: Run, v: string[]) {
  const { store, payments, hook, watchers, traffic } = run;
  const restarted = run.replicas.some((r) => r.starts > 1);
  const requests = (await store.unsafeQuery('SELECT id, args FROM il_requests')).map((r) => ({
    id: String(r.id),
    amount: Number((JSON.parse(String(r.args)) as { amount: unknown }).amount),
  }));
  // Notifications: one distinct delivery per request, each POSTed once.
  const deliveries = new Map<string, string[]>();
  for (const req of hook.received) {
    const body = req.json() as { type: string; deliveryId: string; message: { id: string } };
    if (body.type !== 'approval_requested') continue;
    deliveries.set(body.message.id, [...(deliveries.get(body.message.id) ?? []), body.deliveryId]);
  }
  // A request decided or expired before its notification job ran is rightly not sent (nobody needs
  // asking): a replica killed holding the job leaves it for one lease, and a 2 s request may be gone by then.
  const skipped = await skippedNotifications(store);
  let redelivered = 0;
  for (const r of requests) {
    const got = deliveries.get(r.id) ?? [];
    if (got.length === 0 && skipped.has(r.id)) continue;
    if (new Set(got).size !== 1) v.push(`request ${r.id} was notified under ${new Set(got).size} delivery ids, not 1`);
    else if (got.length > 1) {
      redelivered++;
      // Sent and then killed before it was recorded: sent again after the lease, under the same delivery
      // id (at least once, deduplicable). With every replica alive, a second POST is a double.
      if (!restarted) v.push(`request ${r.id} was notified ${got.length} times (delivery ${got[0]})`);
    }
  }
  // Timeout defaults: one "expired" per request, and only where the policy's timeout is 2 s (the others are 1 h).
  const expired = await store.unsafeQuery(
    `SELECT request_id, COUNT(*) AS n FROM il_audit WHERE type = 'expired' GROUP BY request_id`,
  );
  const amountOf = new Map(requests.map((r) => [r.id, r.amount]));
  for (const e of expired) {
    const amount = amountOf.get(String(e.request_id)) ?? NaN;
    if (Number(e.n) !== 1) v.push(`request ${String(e.request_id)} has ${String(e.n)} "expired" events, not 1`);
    if (!(amount >= BANDS.expireRejectFrom && amount < BANDS.escalateFrom))
      v.push(`request ${String(e.request_id)} ($${amount}, 1 h timeout) was expired early`);
  }
  // Takeovers: every repeated payment call must be explained by an execution taken over.
  const [t] = await store.unsafeQuery('SELECT COUNT(*) AS n FROM il_executions WHERE attempts > 1');
  const takenOver = Number(t?.n);
  const repeated = payments.received - payments.applied.length;
  // Live events: every stream that stayed open saw every decision and expiry, whichever replica made it.
  const kept = watchers.filter((w) => !w.ended);
  if (watchers[0]?.ended) v.push('the event stream to the replica that was never killed ended');
  const wanted = new Set([...traffic.decisions.map((d) => d.requestId), ...expired.map((e) => String(e.request_id))]);
  for (const [i, w] of watchers.entries()) {
    if (w.ended) continue;
    const missed = [...wanted].filter((id) => !w.seen.has(id));
    if (missed.length)
      v.push(`event stream ${i} missed ${missed.length} of ${wanted.size} decisions/expiries (e.g. ${missed[0]})`);
  }
  return {
    notificationsSkipped: skipped.size,
    executionsTakenOver: takenOver,
    paymentCallsRepeated: repeated,
    notifications: hook.received.length,
    notificationsRedelivered: redelivered,
    eventStreamsKept: kept.length,
    liveEventsChecked: wanted.size,
  };
}
