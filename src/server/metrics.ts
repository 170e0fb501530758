import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { agentOf, type EngineEvent, type Interlock } from '../engine/index.ts';

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Also export Node process metrics (CPU, memory, event loop) in this registry; default false. */
  processMetrics?: boolean;
}

/** Prometheus metrics of one app, in its own registry. */
export interface ServerMetrics {
  readonly registry: Registry;
  readonly contentType: string;
  /** The exposition text; queue gauges are read from the store at this moment. */
  render(): Promise<string>;
  /** Stop listening to the engine. */
  dispose(): void;
}

/** The counters and the histogram the engine's events feed, registered in this order. */
function eventSeries(registry: Registry) {
  return {
    interrupts: new Counter({
      name: 'interlock_interrupts_total',
      help: 'Approval requests opened, by tool and tier.',
      labelNames: ['tool', 'tier'],
      registers: [registry],
    }),
    agentInterrupts: new Counter({
      name: 'interlock_agent_interrupts_total',
      help: 'Approval requests opened, by the agent that asked (a tree of agents: the path from its root, e.g. support/refunds).',
      labelNames: ['agent'],
      registers: [registry],
    }),
    toolCalls: new Counter({
      name: 'interlock_tool_calls_total',
      help: 'Gated tool calls, by tool and the tier the policy gave them: those that ran without a person (auto, notify) and those that paused (approve, escalate). Interrupt rate = paused over all.',
      labelNames: ['tool', 'tier'],
      registers: [registry],
    }),
    opened: new Counter({
      name: 'interlock_requests_opened_total',
      help: 'Approval requests that entered a role’s queue (escalations and edits that needed a new request included).',
      labelNames: ['role'],
      registers: [registry],
    }),
    resolved: new Counter({
      name: 'interlock_requests_resolved_total',
      help: 'Approval requests that left a role’s queue: decided, expired, or handed over to a new request.',
      labelNames: ['role'],
      registers: [registry],
    }),
    decisions: new Counter({
      name: 'interlock_decisions_total',
      help: 'Reviewer decisions recorded, by type.',
      labelNames: ['type'],
      registers: [registry],
    }),
    expirations: new Counter({
      name: 'interlock_expirations_total',
      help: 'Approval requests resolved by their timeout default.',
      registers: [registry],
    }),
    executions: new Counter({
      name: 'interlock_executions_total',
      help: 'Executions under the ledger, by tool and outcome.',
      labelNames: ['tool', 'status'],
      registers: [registry],
    }),
    deferred: new Counter({
      name: 'interlock_jobs_deferred_total',
      help: 'Jobs a worker left for another worker, by reason (unknown_agent: it has no agent of that name).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    timeToDecision: new Histogram({
      name: 'interlock_time_to_decision_seconds',
      help: 'Time from an approval request opening to the decision that resolved it.',
      buckets: [10, 30, 60, 300, 900, 1800, 3600, 7200, 14_400, 43_200, 86_400, 172_800],
      registers: [registry],
    }),
  };
}

/** How far this process's clock is from the database's (PostgreSQL), measured by the store; set when scraped. */
function clockGauges(registry: Registry) {
  return {
    offset: new Gauge({
      name: 'interlock_clock_offset_seconds',
      help: "The store's clock minus this process's wall clock: on PostgreSQL the database's, as last measured; on SQLite the steps the host's clock took since the process started. Interlock corrects for it; a large value means the host's time sync is broken.",
      registers: [registry],
    }),
    skewed: new Gauge({
      name: 'interlock_clock_skewed',
      help: '1 when this process’s clock is off from the store’s by more than the tolerance (INTERLOCK_CLOCK_TOLERANCE_MS), else 0.',
      registers: [registry],
    }),
  };
}

type EventSeries = ReturnType<typeof eventSeries>;

/** Queue gauges, computed from the store when scraped (so every process reports the shared queue). */
function queueGauges(registry: Registry) {
  return {
    queueDepth: new Gauge({
      name: 'interlock_queue_depth',
      help: 'Pending approval requests, by required role.',
      labelNames: ['role'],
      registers: [registry],
    }),
    oldest: new Gauge({
      name: 'interlock_oldest_pending_seconds',
      help: 'Age of the oldest pending approval request, by required role.',
      labelNames: ['role'],
      registers: [registry],
    }),
  };
}

/** Count one engine event; `later` runs the request look-ups some events need, off the engine's path. */
function countEvent(
  e: EngineEvent,
  interlock: Interlock,
  series: EventSeries,
  later: (fn: () => Promise<void>) => void,
): void {
  // Planted checks count like any request here: /metrics is open to reviewers, and a series that left
  // them out would give their number away (the queue minus the series). Operators read the true
  // figures, planted checks apart, in the oversight rollup.
  switch (e.type) {
    case 'approval.created':
      later(async () => {
        const req = await interlock.getRequest(e.requestId);
        series.interrupts.inc({ tool: e.tool, tier: req?.tier ?? 'unknown' });
        series.opened.inc({ role: e.role });
        if (req) series.agentInterrupts.inc({ agent: agentOf(req) });
        // A call pauses once: requests an edit or a timeout handed over to are the same call.
        if (req && req.parentId === null) series.toolCalls.inc({ tool: e.tool, tier: req.tier });
      });
      break;
    case 'approval.decided':
      later(async () => {
        const req = await interlock.getRequest(e.requestId);
        series.decisions.inc({ type: e.decision });
        if (e.status !== 'pending' && req) series.resolved.inc({ role: req.role });
        if (e.status !== 'pending' && req?.resolvedAt != null)
          series.timeToDecision.observe(Math.max(0, (req.resolvedAt - req.createdAt) / 1000));
      });
      break;
    case 'approval.expired':
      later(async () => {
        const req = await interlock.getRequest(e.requestId);
        if (!req) return;
        series.expirations.inc();
        series.resolved.inc({ role: req.role });
      });
      break;
    case 'execution.finished':
      series.executions.inc({ tool: e.tool, status: e.status });
      if (e.requestId === null) series.toolCalls.inc({ tool: e.tool, tier: e.tier ?? 'auto' });
      break;
    case 'job.deferred':
      series.deferred.inc({ reason: e.reason });
      break;
    case 'thread.status':
      break;
  }
}

/**
 * Counters fed by the engine's events (so every process counts what it did),
 * and queue gauges computed from the store when scraped (so every process
 * reports the shared queue).
 */
export function createMetrics(interlock: Interlock, opts: MetricsOptions = {}): ServerMetrics {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const series = eventSeries(registry);
  const { queueDepth, oldest } = queueGauges(registry);
  // Only a store that keeps one clock for several processes has an offset to report.
  const clock = interlock.clockSkew() ? clockGauges(registry) : undefined;

  // Events name the request but not every detail; these look-ups finish before the next scrape renders.
  const lookups = new Set<Promise<void>>();
  const later = (fn: () => Promise<void>) => {
    const p = fn()
      .catch(() => undefined)
      .finally(() => lookups.delete(p));
    lookups.add(p);
  };

  // Counters count this process's events; Prometheus sums processes, so remote ones would count twice.
  const off = interlock.on((e) => {
    if (!e.remote) countEvent(e, interlock, series, later);
  });

  return {
    registry,
    contentType: registry.contentType,
    async render() {
      await Promise.allSettled([...lookups]);
      const skew = interlock.clockSkew();
      if (clock && skew?.offsetMs != null) {
        clock.offset.set(skew.offsetMs / 1000);
        clock.skewed.set(skew.skewed ? 1 : 0);
      }
      const rows = await interlock.requests.countPendingByRole();
      const now = interlock.now();
      queueDepth.reset();
      oldest.reset();
      for (const r of rows) {
        queueDepth.set({ role: r.role }, r.count);
        oldest.set({ role: r.role }, Math.max(0, (now - r.oldestCreatedAt) / 1000));
      }
      return registry.metrics();
    },
    dispose: off,
  };
}
