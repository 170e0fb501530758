// What "nothing lost, nothing twice, nothing without a decision" means, checked
// against the database, the audit log and the fake payment API after a run.
import type { ApprovalRequest, AuditEvent } from '../../src/core/index.ts';
import { idempotencyKey } from '../../src/engine/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { AppliedPayment } from '../../src/testing/fake-payments-server.ts';
import { BANDS } from './fixtures/chaos.config.ts';
import type { AcceptedDecision, StartedThread } from './traffic.ts';

/** Figures of a run, for the report. */
export interface RunFigures {
  threads: number;
  threadsCompleted: number;
  threadsWaiting: number;
  requests: number;
  requestsByStatus: Record<string, number>;
  decisionsRecorded: number;
  timeoutDefaultsApplied: number;
  executions: number;
  autoExecutions: number;
  paymentsApplied: number;
  /** Calls the payment API received with a key it had already applied (retries after a crash, deduped). */
  paymentRetriesDeduped: number;
  doubleExecutions: number;
  executedWithoutDecision: number;
  lost: number;
  auditEvents: number;
}

/** What the check found: figures, and every violation in words (empty when all holds). */
export interface InvariantReport {
  figures: RunFigures;
  violations: string[];
}

const FINAL = new Set(['pending', 'rejected', 'responded', 'expired', 'superseded', 'executed']);

async function allRequests(store: Store): Promise<ApprovalRequest[]> {
  const out: ApprovalRequest[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await store.listRequests({ limit: 500, ...(cursor ? { cursor } : {}) });
    out.push(...page.items);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

async function allAudit(store: Store): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await store.listAudit({ afterSeq: after, limit: 5000 });
    out.push(...page);
    if (page.length < 5000) return out;
    after = page[page.length - 1]!.seq;
  }
}

function group<T>(items: readonly T[], key: (t: T) => string | null | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) {
    const k = key(i);
    if (k === null || k === undefined) continue;
    const list = m.get(k);
    if (list) list.push(i);
    else m.set(k, [i]);
  }
  return m;
}

/**
 * Check every invariant of a finished run (the service quiet: no job in hand).
 * - every request is in a final or waiting state, with the audit events its state implies;
 * - every executed request ran exactly once at the payment API, under its idempotency key, with the authorized args;
 * - every payment applied maps to an executed request or an auto-tier call (nothing ran without a verdict);
 * - every thread the service acknowledged exists and is finished or waiting for a person;
 * - every decision the service acknowledged is recorded.
 */
export async function checkInvariants(input: {
  store: Store;
  payments: { applied: readonly AppliedPayment[]; received: number };
  threads: ReadonlyMap<string, StartedThread>;
  decisions: readonly AcceptedDecision[];
}): Promise<InvariantReport> {
  const { store } = input;
  const violations: string[] = [];
  const fail = (msg: string) => {
    if (violations.length < 50) violations.push(msg);
    else if (violations.length === 50) violations.push('… more violations not listed');
  };
  let lost = 0;

  const requests = await allRequests(store);
  const audit = await allAudit(store);
  const byRequest = group(audit, (e) => e.requestId);
  const byThreadAudit = group(audit, (e) => e.threadId);
  const executions = (
    await store.unsafeQuery('SELECT key, request_id, thread_id, status, args FROM il_executions')
  ).map((r) => ({
    key: String(r.key),
    requestId: typeof r.request_id === 'string' ? r.request_id : null,
    threadId: typeof r.thread_id === 'string' ? r.thread_id : null,
    status: String(r.status),
    args: JSON.parse(String(r.args)) as Record<string, unknown>,
  }));
  const threadRows = (await store.unsafeQuery('SELECT id, status FROM il_threads')).map((r) => ({
    id: String(r.id),
    status: String(r.status),
  }));
  const requestsById = new Map(requests.map((r) => [r.id, r]));
  const requestsByThread = group(requests, (r) => r.threadId);
  const executionsByKey = new Map(executions.map((e) => [e.key, e]));
  const appliedByKey = group(input.payments.applied, (p) => p.idempotencyKey);

  // Requests: a valid state, and the audit events that state implies.
  const byStatus: Record<string, number> = {};
  let decisionsRecorded = 0;
  let timeouts = 0;
  for (const r of requests) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const events = byRequest.get(r.id) ?? [];
    const count = (t: string) => events.filter((e) => e.type === t).length;
    decisionsRecorded += count('approved') + count('edited') + count('rejected') + count('responded');
    timeouts += count('expired');
    if (!FINAL.has(r.status)) {
      fail(
        `request ${r.id} is ${r.status}: ${r.status === 'authorized' || r.status === 'executing' ? 'authorized but never executed' : 'not a state this run can end in'}`,
      );
      if (r.status === 'authorized' || r.status === 'executing') lost++;
    }
    if (count('interrupted') !== 1) fail(`request ${r.id} has ${count('interrupted')} "interrupted" events, not 1`);
    const resolvedBy = r.resolution?.type;
    const executedEvents = events.filter((e) => e.type === 'executed');
    switch (r.status) {
      case 'executed': {
        const authorized =
          (resolvedBy === 'approve' && count('approved') >= 1 && r.approvalsReceived >= r.approvalsRequired) ||
          (resolvedBy === 'edit' && count('edited') === 1) ||
          (resolvedBy === 'timeout' && r.resolution?.applied === 'approve' && count('expired') === 1);
        if (!authorized)
          fail(`request ${r.id} was executed without the decision events that authorize it (resolution ${resolvedBy})`);
        if (executedEvents.length !== 1) fail(`request ${r.id} has ${executedEvents.length} "executed" events, not 1`);
        const key = idempotencyKey(r.id, r.actionHash);
        const ex = executionsByKey.get(key);
        if (!ex || ex.status !== 'succeeded')
          fail(`request ${r.id} is executed but its ledger row ${key} is ${ex?.status ?? 'missing'}`);
        if (JSON.stringify(executedEvents[0]?.payload.args) !== JSON.stringify(r.args))
          fail(`request ${r.id} ran with other args than it authorized`);
        const applied = appliedByKey.get(key) ?? [];
        if (applied.length !== 1)
          fail(`request ${r.id} reached the payment API ${applied.length} times under its key, not once`);
        else if (applied[0]!.body.amount !== r.args.amount || applied[0]!.body.orderId !== r.args.orderId)
          fail(`request ${r.id}: the payment applied is not the authorized action`);
        break;
      }
      case 'rejected':
        if (count('rejected') !== 1) fail(`request ${r.id} is rejected without exactly one "rejected" event`);
        break;
      case 'responded':
        if (count('responded') !== 1) fail(`request ${r.id} is responded without exactly one "responded" event`);
        break;
      case 'expired':
        if (count('expired') !== 1 || resolvedBy !== 'timeout')
          fail(`request ${r.id} is expired without exactly one "expired" event`);
        break;
      case 'superseded': {
        const next = r.supersededBy ? requestsById.get(r.supersededBy) : undefined;
        if (!next || next.parentId !== r.id) fail(`request ${r.id} is superseded but its successor is missing`);
        if (count('escalated') !== 1) fail(`request ${r.id} is superseded without one "escalated" event`);
        break;
      }
      case 'pending':
        if (events.some((e) => ['edited', 'rejected', 'responded', 'expired'].includes(e.type)))
          fail(`request ${r.id} is pending but has a resolving event`);
        if (r.approvalsReceived >= r.approvalsRequired) fail(`request ${r.id} is pending with its quorum reached`);
        break;
    }
    if (r.status !== 'executed' && executedEvents.length > 0)
      fail(`request ${r.id} is ${r.status} but has an "executed" event`);
  }

  // The ledger and the payment API: every effect maps to an authorized request or an auto-tier call.
  let autoExecutions = 0;
  for (const ex of executions) {
    if (ex.status !== 'succeeded') {
      fail(`ledger row ${ex.key} is ${ex.status}`);
      if (ex.status === 'running') lost++;
    }
    if (ex.requestId) {
      const r = requestsById.get(ex.requestId);
      if (!r || r.status !== 'executed')
        fail(`ledger row ${ex.key} belongs to request ${ex.requestId}, which is ${r?.status ?? 'missing'}`);
    } else {
      autoExecutions++;
      if (!(Number(ex.args.amount) <= BANDS.autoMax))
        fail(`ledger row ${ex.key} ran $${String(ex.args.amount)} with no request: above the auto tier`);
      const events = (byThreadAudit.get(ex.threadId ?? '') ?? []).filter(
        (e) => e.type === 'auto_executed' && e.payload.idempotencyKey === ex.key,
      );
      if (events.length !== 1) fail(`auto execution ${ex.key} has ${events.length} "auto_executed" events, not 1`);
    }
  }
  let executedWithoutDecision = 0;
  for (const p of input.payments.applied) {
    const ex = executionsByKey.get(p.idempotencyKey);
    if (!ex) {
      executedWithoutDecision++;
      fail(`payment under key ${p.idempotencyKey} has no ledger row: it ran without a verdict`);
    } else if (ex.requestId === null && !(Number(p.body.amount) <= BANDS.autoMax)) {
      executedWithoutDecision++;
      fail(`payment under key ${p.idempotencyKey} ran $${String(p.body.amount)} without a request`);
    }
  }
  // One refund per thread at most: each thread proposes one, so two effects for a thread are a double execution.
  let doubleExecutions = 0;
  for (const [thread, effects] of group(input.payments.applied, (p) => String(p.body.threadId))) {
    if (effects.length > 1) {
      doubleExecutions++;
      fail(
        `thread ${thread} was refunded ${effects.length} times (keys ${effects.map((e) => e.idempotencyKey).join(', ')})`,
      );
    }
  }

  // Threads: finished, or waiting for a person; every acknowledged one exists.
  const threadsById = new Map(threadRows.map((t) => [t.id, t]));
  let completed = 0;
  let waiting = 0;
  for (const t of threadRows) {
    const pending = (requestsByThread.get(t.id) ?? []).filter((r) => r.status === 'pending');
    if (t.status === 'completed') {
      completed++;
      if (pending.length > 0) fail(`thread ${t.id} is completed with ${pending.length} pending requests`);
      if (!(byThreadAudit.get(t.id) ?? []).some((e) => e.type === 'thread_completed'))
        fail(`thread ${t.id} is completed without a "thread_completed" event`);
    } else if (t.status === 'interrupted') {
      waiting++;
      if (pending.length === 0) {
        lost++;
        fail(`thread ${t.id} is interrupted but waits for no pending request`);
      }
    } else {
      lost++;
      fail(`thread ${t.id} is ${t.status}: neither finished nor waiting for a person`);
    }
  }
  for (const [id, s] of input.threads) {
    if (s.outcome === 'accepted' && !threadsById.has(id)) {
      lost++;
      fail(`thread ${id} was acknowledged (202) but does not exist`);
    }
  }

  // Decisions the service acknowledged are recorded, by the reviewer who made them, at the version they saw.
  const TYPE_EVENT = { approve: 'approved', edit: 'edited', reject: 'rejected', respond: 'responded' } as const;
  for (const d of input.decisions) {
    const events = byRequest.get(d.requestId) ?? [];
    if (
      !events.some(
        (e) =>
          e.type === TYPE_EVENT[d.type] &&
          e.actor === `reviewer:${d.reviewerId}` &&
          e.payload.version === d.expectedVersion,
      )
    ) {
      lost++;
      fail(`decision ${d.type} on ${d.requestId} by ${d.reviewerId} was acknowledged but is not in the audit log`);
    }
  }

  return {
    violations,
    figures: {
      threads: threadRows.length,
      threadsCompleted: completed,
      threadsWaiting: waiting,
      requests: requests.length,
      requestsByStatus: byStatus,
      decisionsRecorded,
      timeoutDefaultsApplied: timeouts,
      executions: executions.length,
      autoExecutions,
      paymentsApplied: input.payments.applied.length,
      paymentRetriesDeduped: input.payments.received - input.payments.applied.length,
      doubleExecutions,
      executedWithoutDecision,
      lost,
      auditEvents: audit.length,
    },
  };
}

/**
 * Wait until the service has nothing in hand: no thread running, no resume job
 * ready or leased (but for thread-start recovery jobs that will find nothing to
 * do), no authorized action waiting to run, no pending request past its expiry.
 * Returns false on timeout (the check then reports what is stuck).
 */
export async function waitUntilQuiet(store: Store, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const now = Date.now();
    const [busy] = await store.unsafeQuery(
      `SELECT
         (SELECT COUNT(*) FROM il_threads WHERE status = 'running') AS threads,
         (SELECT COUNT(*) FROM il_jobs j WHERE kind = 'resume' AND status IN ('ready', 'running')
            -- a thread start's recovery job finds nothing to do once its thread paused or ended (see createThreadsAdapter)
            AND NOT (payload LIKE '%"start":true%' AND EXISTS (SELECT 1 FROM il_threads t WHERE t.id = j.thread_id AND t.status <> 'running'))) AS jobs,
         (SELECT COUNT(*) FROM il_requests WHERE status IN ('authorized', 'executing') OR (status = 'pending' AND expires_at <= $1)) AS requests`,
      [now],
    );
    if (Number(busy?.threads) === 0 && Number(busy?.jobs) === 0 && Number(busy?.requests) === 0) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}
