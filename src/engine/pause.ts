import { newId, type ApprovalRequest, type AuditEventInput } from '../core/index.ts';
import { InterlockUsageError, isInterrupting, ValidationError } from '../core/index.ts';
import type { StoreTx, ThreadRow, ThreadStatus } from '../store/types.ts';
import type { EngineContext, EngineEvent } from './context.ts';
import { commitWithEvents } from './commit-events.ts';
import { newRequest, type PauseItem } from './new-request.ts';
import { plantFor } from './plant.ts';

export { newRequest, type PauseItem } from './new-request.ts';

/** The thread a pause or checkpoint belongs to; created on first use. */
export interface ThreadRef {
  id: string;
  agent: string;
  agentVersion: string;
  metadata?: Record<string, unknown>;
  /**
   * The run lease the writer holds (the agent's runs). Writes are then fenced:
   * if the lease passed to another run (this one outlived it), nothing is
   * written and `lease_lost` is thrown, so two runs never interleave a thread.
   */
  leaseOwner?: string;
}

function leaseLost(threadId: string): InterlockUsageError {
  return new InterlockUsageError(
    'lease_lost',
    `This run of thread ${threadId} lost its lease to another run (it outlived INTERLOCK_LEASE_MS, or its renewals failed); what it did since its last checkpoint is discarded, and the other run carries on.`,
    { details: { threadId } },
  );
}

/**
 * A checkpoint of the loop: the messages added since the last one (stored once,
 * appended to the thread) and the loop state, which refers to messages by count.
 */
export interface CheckpointInput {
  newMessages: readonly unknown[];
  state: Record<string, unknown>;
  schemaVersion: number;
}

/** What {@link pause} writes. */
export interface PauseInput {
  thread: ThreadRef;
  checkpoint?: CheckpointInput;
  items: readonly PauseItem[];
  proposer: string;
  /** Give the thread's run lease back with the pause. */
  releaseLease?: boolean;
  /** Requests whose ready `resume` jobs the pause makes moot (see {@link CheckpointOptions}). */
  settleResumeJobs?: readonly string[];
  /** Audit events of the run since its last checkpoint, appended before the requests' own. */
  audit?: AuditEventInput[];
}

/** What {@link pause} wrote. */
export interface PauseResult {
  checkpointId: string | null;
  requests: ApprovalRequest[];
}

/** Make the thread row exist and append the checkpoint's messages; returns the new checkpoint id. */
export async function writeCheckpoint(
  tx: StoreTx,
  thread: ThreadRef,
  cp: CheckpointInput | undefined,
  status: ThreadStatus,
  now: number,
  opts: { releaseLease?: boolean } = {},
): Promise<{ checkpointId: string | null; created: boolean }> {
  const releaseLease = opts.releaseLease ?? false;
  // A run holding the lease writes fenced, in one statement each; a writer without one (a pause
  // from outside a run) may be the first to touch the thread and creates its row.
  if (thread.leaseOwner !== undefined) {
    const leaseOwner = thread.leaseOwner;
    return cp
      ? fencedCheckpoint(tx, thread, leaseOwner, cp, status, now, releaseLease)
      : fencedStatus(tx, thread, leaseOwner, status, now, releaseLease);
  }
  return cp
    ? unfencedCheckpoint(tx, thread, cp, status, now, releaseLease)
    : unfencedStatus(tx, thread, status, now, releaseLease);
}

/** The row of a thread a checkpoint creates. */
function newThreadRow(
  thread: ThreadRef,
  status: ThreadStatus,
  messageCount: number,
  now: number,
): Omit<ThreadRow, 'leaseOwner' | 'leaseUntil'> {
  return {
    id: thread.id,
    agent: thread.agent,
    agentVersion: thread.agentVersion,
    status,
    messageCount,
    abortRequested: false,
    metadata: thread.metadata ?? {},
    createdAt: now,
    updatedAt: now,
  };
}

/** A fenced status change: the same one-statement update as a run's checkpoint, with no messages. */
async function fencedStatus(
  tx: StoreTx,
  thread: ThreadRef,
  leaseOwner: string,
  status: ThreadStatus,
  now: number,
  releaseLease: boolean,
): Promise<{ checkpointId: null; created: false }> {
  const at = await tx.advanceThread(
    thread.id,
    { status, addMessages: 0, agentVersion: thread.agentVersion, releaseLease, leaseOwner },
    now,
  );
  if (at === undefined) throw leaseLost(thread.id);
  return { checkpointId: null, created: false };
}

/** A status change without a lease: the thread row is created when it does not exist yet. */
async function unfencedStatus(
  tx: StoreTx,
  thread: ThreadRef,
  status: ThreadStatus,
  now: number,
  releaseLease: boolean,
): Promise<{ checkpointId: null; created: boolean }> {
  let row: Pick<ThreadRow, 'status'> | undefined = await tx.getThread(thread.id);
  let created = false;
  if (!row) {
    row = { status };
    created = await tx.insertThread(newThreadRow(thread, status, 0, now));
    // Another run created it between the read and the insert (two calls of one step pausing at once).
    if (!created) row = await tx.getThread(thread.id);
  }
  if ((!created && row?.status !== status) || releaseLease)
    await tx.updateThread(thread.id, { status, ...(releaseLease ? { leaseOwner: null } : {}) }, now);
  return { checkpointId: null, created };
}

/** A run's checkpoint: the database counts the messages, nothing waits for an answer. */
async function fencedCheckpoint(
  tx: StoreTx,
  thread: ThreadRef,
  leaseOwner: string,
  cp: CheckpointInput,
  status: ThreadStatus,
  now: number,
  releaseLease: boolean,
): Promise<{ checkpointId: string; created: false }> {
  const checkpointId = newId<string>('cp');
  await tx.writeFencedCheckpoint(
    {
      threadId: thread.id,
      leaseOwner,
      status,
      agentVersion: thread.agentVersion,
      releaseLease,
      messages: cp.newMessages,
      checkpoint: { id: checkpointId, schemaVersion: cp.schemaVersion, state: cp.state, createdAt: now },
    },
    now,
    () => leaseLost(thread.id),
  );
  return { checkpointId, created: false };
}

/** A checkpoint without a lease: the thread row is created when it does not exist yet. */
async function unfencedCheckpoint(
  tx: StoreTx,
  thread: ThreadRef,
  cp: CheckpointInput,
  status: ThreadStatus,
  now: number,
  releaseLease: boolean,
): Promise<{ checkpointId: string; created: boolean }> {
  // One statement counts the new messages on the thread row (under its lock) and says where they start.
  const n = cp.newMessages.length;
  const advance = () =>
    tx.advanceThread(thread.id, { status, addMessages: n, agentVersion: thread.agentVersion, releaseLease }, now);
  let from = await advance();
  let created = false;
  if (from === undefined) {
    created = await tx.insertThread(newThreadRow(thread, status, n, now));
    if (created) from = 0;
    else {
      // Another run created it meanwhile: count the messages on the row it wrote, as above.
      from = await advance();
      if (from === undefined) throw new Error(`Thread ${thread.id} vanished while its checkpoint was written.`);
    }
  }
  await tx.appendMessages(thread.id, from, cp.newMessages);
  const checkpointId = newId<string>('cp');
  await tx.insertCheckpoint({
    id: checkpointId,
    threadId: thread.id,
    messageCount: from + n,
    schemaVersion: cp.schemaVersion,
    state: cp.state,
    createdAt: now,
  });
  return { checkpointId, created };
}

/** Insert a request with its `interrupted` audit event and the job that notifies its reviewers. */
export async function openRequest(
  tx: StoreTx,
  req: ApprovalRequest,
  extraAudit: AuditEventInput[] = [],
): Promise<void> {
  await tx.insertRequest(req);
  await tx.enqueueJob({
    id: newId('job'),
    kind: 'notify',
    threadId: req.threadId,
    requestId: req.id,
    payload: { role: req.role },
    runAt: req.createdAt,
    createdAt: req.createdAt,
  });
  await tx.appendAudit(
    [
      ...extraAudit,
      {
        type: 'interrupted',
        actor: req.proposer,
        threadId: req.threadId,
        requestId: req.id,
        payload: {
          tool: req.tool,
          args: req.args,
          actionHash: req.actionHash,
          tier: req.tier,
          ruleId: req.ruleId,
          reason: req.reason,
          role: req.role,
          approvalsRequired: req.approvalsRequired,
          expiresAt: req.expiresAt,
          parentId: req.parentId,
          // Inside a tree of agents: who proposed it, from the root agent down (see docs/multi-agent.md).
          ...(Array.isArray(req.context.agentPath) ? { path: req.context.agentPath } : {}),
        },
      },
    ],
    req.createdAt,
  );
}

/**
 * Pause a thread before gated calls: in ONE transaction the checkpoint (full
 * loop state), one approval request per call, their audit events and the
 * notification jobs. Nobody is told before all of it is durable.
 */
export async function pause(ctx: EngineContext, input: PauseInput): Promise<PauseResult> {
  if (input.items.length === 0)
    throw new ValidationError('pause needs at least one item: the gated call to ask about.');
  for (const item of input.items) {
    if (!isInterrupting(item.verdict.tier)) {
      throw new ValidationError(
        `Tool "${item.call.tool}" has tier "${item.verdict.tier}", which does not pause; run it (auto/notify) or refuse it (block) instead.`,
      );
    }
  }
  const now = ctx.now();
  const result = await commitWithEvents(
    ctx,
    (tx) => pauseInTx(ctx, tx, input, now),
    (r): EngineEvent[] => [
      { type: 'thread.status', threadId: input.thread.id, status: 'interrupted' },
      ...[...r.requests, ...r.planted].map((q) => ({
        type: 'approval.created' as const,
        requestId: q.id,
        threadId: q.threadId,
        tool: q.tool,
        role: q.role,
      })),
    ],
  );
  return { checkpointId: result.checkpointId, requests: result.requests };
}

/** The pause's writes, in its transaction: checkpoint, requests (planted checks among them), audit, notification jobs. */
async function pauseInTx(ctx: EngineContext, tx: StoreTx, input: PauseInput, now: number) {
  const { checkpointId } = await writeCheckpoint(tx, input.thread, input.checkpoint, 'interrupted', now, {
    releaseLease: input.releaseLease ?? false,
  });
  if (input.settleResumeJobs?.length) await tx.settleResumeJobs(input.thread.id, input.settleResumeJobs, now);
  if (input.audit?.length) await tx.appendAudit(input.audit, now);
  const requests: ApprovalRequest[] = [];
  const planted: ApprovalRequest[] = [];
  for (const item of input.items) {
    const req = newRequest(ctx, { threadId: input.thread.id, checkpointId, proposer: input.proposer, item, now });
    await openRequest(tx, req);
    requests.push(req);
    const check = plantFor(ctx, item, req);
    if (!check) continue;
    await openRequest(tx, check);
    // Its own append, so it goes to the planted request's chain, not the thread's: in the thread's
    // chain it left a gap (an event a reviewer cannot read) right where the check was placed.
    await tx.appendAudit(
      [
        {
          type: 'planted',
          actor: 'system:oversight',
          threadId: null,
          requestId: check.id,
          payload: { tool: check.tool, ruleId: check.ruleId, tier: check.tier, role: check.role, beside: req.id },
        },
      ],
      now,
    );
    planted.push(check);
  }
  return { checkpointId, requests, planted };
}

/** Options of {@link checkpoint}. */
export interface CheckpointOptions {
  /** Give the thread's run lease back. */
  releaseLease?: boolean;
  /** Requests whose ready `resume` jobs this checkpoint makes moot (the run resolved them itself); marked done in its transaction. */
  settleResumeJobs?: readonly string[];
}

/** Save a checkpoint without pausing (after tool results, at the end of a turn). */
export async function checkpoint(
  ctx: EngineContext,
  thread: ThreadRef,
  cp: CheckpointInput | undefined,
  status: ThreadStatus,
  audit: AuditEventInput[] = [],
  opts: CheckpointOptions = {},
): Promise<string | null> {
  const now = ctx.now();
  return commitWithEvents(
    ctx,
    async (tx) => {
      const { checkpointId } = await writeCheckpoint(tx, thread, cp, status, now, opts);
      if (opts.settleResumeJobs?.length) await tx.settleResumeJobs(thread.id, opts.settleResumeJobs, now);
      if (audit.length) await tx.appendAudit(audit, now);
      return checkpointId;
    },
    () => [{ type: 'thread.status', threadId: thread.id, status }],
  );
}
