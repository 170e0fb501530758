import assert from 'node:assert/strict';
import type { ApprovalRequest, Reviewer } from '../../core/index.ts';
import type { Interlock, RunnerResult, ThreadRunner } from '../../engine/index.ts';
import type { Store } from '../../store/types.ts';
import type { BackendInitializer } from '../backends.ts';
import { conformanceWorld, type ConformanceEffect, type ConformanceWorld, type IntegrationDriver } from './world.ts';

/** The lease of a process the suite kills: short, so the survivor takes over soon. */
export const DEATH_LEASE_MS = 400;

/** A decision as the scenarios give it (the suite adds the version and action hash it read). */
export type DecisionInput =
  | { type: 'approve'; trust?: boolean }
  | { type: 'reject'; message?: string }
  | { type: 'respond'; message: string }
  | { type: 'edit'; args: Record<string, unknown> };

/**
 * What every scenario of one driver on one database works with. `il`, `store`, `agent` and `world`
 * are set before the first test runs; the helpers read them when a test calls them.
 */
export interface SuiteContext {
  readonly driver: IntegrationDriver;
  readonly backend: BackendInitializer;
  il: Interlock;
  store: Store;
  agent: ThreadRunner;
  world: ConformanceWorld;
  /** Every refund that ran, in every world of this database. */
  readonly effects: ConformanceEffect[];
  /** What the framework keeps across worlds (see {@link ConformanceWorld.shared}). */
  readonly shared: Map<string, unknown>;
  /** A fresh conversation name, also the order id its refunds are for. */
  thread: () => string;
  /** The thread the runner reported for a conversation (integrations may keep their own ids). */
  tid: (conversation: string) => string;
  /** A runner that notes the thread ids it reports, so `resume` follows them. */
  threadsOf: (runner: ThreadRunner) => ThreadRunner;
  /** A world over another engine on this database: another process. */
  worldOf: (il: Interlock, store: Store) => ConformanceWorld;
  effectsOf: (orderId: string) => ConformanceEffect[];
  amounts: (orderId: string) => number[];
  /** The open (not planted) requests of a conversation's thread. */
  pending: (conversation: string) => Promise<ApprovalRequest[]>;
  /** The open (not planted) requests for an order, on whichever thread of a tree they opened. */
  pendingFor: (orderId: string) => Promise<ApprovalRequest[]>;
  /** Decide as a reviewer would: with the version and action hash read just before. */
  decide: (req: ApprovalRequest, d: DecisionInput, who: Reviewer) => ReturnType<Interlock['decide']>;
  /** The run paused on one gated call: its request. */
  onlyRequest: (r: RunnerResult) => Promise<ApprovalRequest>;
}

/** The context of one driver on one database; the suite sets `il`, `store`, `agent` and `world` in `before`. */
export function suiteContext(driver: IntegrationDriver, backend: BackendInitializer): SuiteContext {
  const effects: ConformanceEffect[] = [];
  const shared = new Map<string, unknown>();
  let n = 0;
  // An integration may keep its own thread ids (the MCP gateway's are per principal): the suite
  // names a conversation and follows the thread the runner reports for it.
  const ids = new Map<string, string>();
  const c: SuiteContext = {
    driver,
    backend,
    il: undefined as unknown as Interlock,
    store: undefined as unknown as Store,
    agent: undefined as unknown as ThreadRunner,
    world: undefined as unknown as ConformanceWorld,
    effects,
    shared,
    thread: () => `cf-${driver.name}-${backend.name}-${++n}`,
    tid: (t) => ids.get(t) ?? t,
    threadsOf: (runner) => ({
      ...runner,
      name: runner.name,
      version: runner.version,
      async invoke(input, o) {
        const r = await runner.invoke(input, o);
        if (o?.threadId) ids.set(o.threadId, r.threadId);
        return r;
      },
      resume: (t) => runner.resume(c.tid(t)),
      abort: (t, by) => runner.abort(c.tid(t), by),
    }),
    worldOf: (il, store) => conformanceWorld(il, effects, shared, (sql, params) => store.unsafeQuery(sql, params)),
    effectsOf: (orderId) => effects.filter((e) => e.args.orderId === orderId),
    amounts: (orderId) => c.effectsOf(orderId).map((e) => e.args.amount),
    pending: async (t) =>
      (await c.il.listRequests({ threadId: c.tid(t), status: 'pending' })).items.filter((r) => !r.planted),
    pendingFor: async (orderId) =>
      (await c.il.listRequests({ status: 'pending' })).items.filter((r) => !r.planted && r.args.orderId === orderId),
    async decide(req, d, who) {
      const fresh = await c.il.getRequestOrThrow(req.id);
      return c.il.decide(req.id, { ...d, expectedVersion: fresh.version, actionHash: fresh.actionHash }, who);
    },
    async onlyRequest(r) {
      assert.equal(r.stopReason, 'interrupt', `expected a pause, got ${r.stopReason}`);
      const open = await c.pending(r.threadId);
      assert.equal(open.length, 1, 'one request for the one gated call');
      return open[0]!;
    },
  };
  return c;
}
