import { actionHash, InterlockUsageError, NotFoundError, transition, type AuditEventInput } from '../core/index.ts';
import type { ExecutionRow, ThreadRow, ThreadStatus } from '../store/types.ts';
import type { EngineContext } from './context.ts';
import { writeCheckpoint, type CheckpointInput, type ThreadRef } from './pause.ts';

/** What an execution under the ledger came to. */
export type ExecutionOutcome<T> =
  | { status: 'succeeded'; result: T; replayed: boolean; key: string; thread?: ThreadRow }
  | { status: 'failed'; error: string; replayed: boolean; key: string; thread?: ThreadRow }
  /** Another process holds the claim and its lease is live: try again later. */
  | { status: 'in_progress'; key: string; leaseUntil: number | null };

/** What runs: a tool call, with the key external APIs can dedupe on. */
export interface ExecutionInput {
  key: string;
  tool: string;
  args: Record<string, unknown>;
  threadId?: string | null;
  requestId?: string | null;
  /** Audit event type for success; default `executed`. */
  auditType?: 'executed' | 'auto_executed';
  /** Extra audit payload (why it ran: tier, rule, trust grant). */
  auditPayload?: Record<string, unknown>;
  /** Tell a role after it ran (the `notify` tier). */
  notifyRole?: string | null;
}

/** Options of one execution. */
export interface ExecuteOptions {
  /** How long the claim is held before another process may take it over (default: the engine's `leaseMs`). */
  leaseMs?: number;
  /**
   * Errors that mean "stopped on purpose before any side effect" (an interrupt
   * raised inside a tool): the claim is marked abandoned and the error rethrown.
   */
  abandonIf?: (err: unknown) => boolean;
  /**
   * A checkpoint to commit in the claim's transaction: the caller's state before
   * the side effect (the agent loop's, with the model output that proposed the
   * call) becomes durable together with the claim, in one commit instead of two.
   * Written even when the claim finds the key already finished or held.
   */
  checkpoint?: { thread: ThreadRef; checkpoint: CheckpointInput; status: ThreadStatus; audit?: AuditEventInput[] };
  /**
   * Read the thread's row in the outcome's transaction and return it as `thread` (when this
   * execution recorded the outcome). The agent loop's next boundary reads the abort flag from it
   * instead of asking the database again right after the commit.
   */
  readThread?: boolean;
}

/** The key binding an execution to one request and one exact action. */
export function idempotencyKey(requestId: string, hash: string): string {
  return `${requestId}:${hash}`;
}

function replay<T>(row: ExecutionRow): ExecutionOutcome<T> {
  if (row.status === 'abandoned')
    return {
      status: 'failed',
      error: 'abandoned by an interrupt; run again under a new key',
      replayed: true,
      key: row.key,
    };
  if (row.status === 'succeeded') return { status: 'succeeded', result: row.result as T, replayed: true, key: row.key };
  if (row.status === 'failed') return { status: 'failed', error: row.error ?? 'failed', replayed: true, key: row.key };
  return { status: 'in_progress', key: row.key, leaseUntil: row.leaseUntil };
}

/**
 * Run a side effect at most once per key. The claim commits before `fn` runs;
 * the outcome commits after. A second call returns the recorded outcome; a
 * claim left by a crashed process is taken over after its lease, with the same
 * key, which `fn` receives so the external API can dedupe the retry.
 */
export async function executeOnce<T>(
  ctx: EngineContext,
  input: ExecutionInput,
  fn: (run: { idempotencyKey: string; attempt: number }) => Promise<T>,
  opts: ExecuteOptions = {},
): Promise<ExecutionOutcome<T>> {
  const leaseMs = opts.leaseMs ?? ctx.leaseMs;
  const hash = actionHash(input.tool, input.args);
  const now = ctx.now();
  const claim = await ctx.store.transaction(async (tx) => {
    const cp = opts.checkpoint;
    // The checkpoint's first statement and the request's lock are asked for together (one round
    // trip), the thread row first, as every transaction that takes both does.
    const checkpointing = cp ? writeCheckpoint(tx, cp.thread, cp.checkpoint, cp.status, now) : undefined;
    const reading = input.requestId ? tx.getRequest(input.requestId, { forUpdate: true }) : undefined;
    reading?.catch(() => undefined); // awaited below; a failure fails the transaction either way
    // The claim is asked for with them, before the request is checked: if a check below refuses,
    // the transaction rolls back and the claim with it.
    const claiming = input.requestId
      ? tx.claimExecution(
          {
            key: input.key,
            requestId: input.requestId,
            threadId: input.threadId ?? null,
            tool: input.tool,
            args: input.args,
            actionHash: hash,
            leaseOwner: ctx.owner,
            leaseUntil: now + leaseMs,
            createdAt: now,
          },
          now,
        )
      : undefined;
    claiming?.catch(() => undefined);
    if (cp) {
      await checkpointing;
      if (cp.audit?.length) await tx.appendAudit(cp.audit, now);
    }
    if (input.requestId) {
      const req = await reading;
      if (!req) throw new NotFoundError('approval_request', input.requestId);
      if (req.planted)
        throw new InterlockUsageError(
          'planted_check',
          `Approval request ${req.id} is a planted check: it tests reviewers and never runs, whatever was decided.`,
          { details: { requestId: req.id } },
        );
      if (!['authorized', 'executing', 'executed', 'failed'].includes(req.status)) {
        throw new InterlockUsageError(
          'not_authorized',
          `Approval request ${req.id} is ${req.status}; only an authorized action runs. Wait for a decision.`,
          { details: { requestId: req.id, status: req.status } },
        );
      }
      if (req.actionHash !== hash) {
        throw new InterlockUsageError(
          'action_hash_mismatch',
          `The action to run does not match the one authorized on request ${req.id}; run exactly the authorized arguments.`,
          { details: { requestId: req.id } },
        );
      }
      const c = (await claiming)!;
      if (c.claimed && req.status === 'authorized')
        await tx.updateLockedRequest(transition(req, { type: 'start_execution' }, now), req.version);
      return c;
    }
    return tx.claimExecution(
      {
        key: input.key,
        requestId: null,
        threadId: input.threadId ?? null,
        tool: input.tool,
        args: input.args,
        actionHash: hash,
        leaseOwner: ctx.owner,
        leaseUntil: now + leaseMs,
        createdAt: now,
        // The tier it ran at, so every call is counted (the interrupt rate); from the caller's "why".
        tier: typeof input.auditPayload?.tier === 'string' ? input.auditPayload.tier : 'auto',
      },
      now,
    );
  });
  if (opts.checkpoint)
    ctx.emit({ type: 'thread.status', threadId: opts.checkpoint.thread.id, status: opts.checkpoint.status });
  if (!claim.claimed) {
    // The key was used for another action (a call id a model reused, under a key built from it):
    // its recorded result is not this call's, and this call must not be taken as done.
    if (claim.row.actionHash !== hash)
      throw new InterlockUsageError(
        'action_hash_mismatch',
        `Idempotency key ${input.key} was used for another action of ${claim.row.tool}; this call did not run, and the recorded result is not its. Give each call its own key (a call id a model reuses is a new call).`,
        { details: { key: input.key } },
      );
    return replay<T>(claim.row);
  }

  let outcome: { status: 'succeeded'; result: T } | { status: 'failed'; error: string };
  // A side effect may outlast the claim's lease (a slow API): renew it while it runs, so no
  // other process takes the claim over and repeats the call.
  const renewal = setInterval(
    () => void ctx.store.renewExecution(input.key, ctx.owner, ctx.now() + leaseMs).catch(() => undefined),
    Math.max(50, leaseMs / 3),
  );
  renewal.unref();
  try {
    outcome = { status: 'succeeded', result: await fn({ idempotencyKey: input.key, attempt: claim.row.attempts }) };
  } catch (err) {
    if (opts.abandonIf?.(err)) {
      clearInterval(renewal);
      await ctx.store.transaction((tx) => tx.finishExecution(input.key, ctx.owner, { status: 'abandoned' }, ctx.now()));
      throw err;
    }
    outcome = { status: 'failed', error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearInterval(renewal);
  }
  const done = ctx.now();
  const recorded = await ctx.store.transaction(async (tx) => {
    const finishing = tx.finishExecution(
      input.key,
      ctx.owner,
      outcome.status === 'succeeded'
        ? { status: 'succeeded', result: outcome.result ?? null }
        : { status: 'failed', error: outcome.error },
      done,
    );
    // Asked for together with the outcome (one round trip), after it: the ledger row is locked first, as before.
    const reading = input.requestId ? tx.getRequest(input.requestId, { forUpdate: true }) : undefined;
    reading?.catch(() => undefined); // awaited below, or not needed when the lease was lost
    // The thread as the tool left it (an abort asked while it ran shows), in the same round trip.
    const threadReading = opts.readThread && input.threadId ? tx.getThread(input.threadId) : undefined;
    threadReading?.catch(() => undefined);
    if (!(await finishing)) return false;
    if (input.requestId) {
      const req = await reading;
      // An execution finishes its request once; a request already final (a replay's) stays as it is.
      if (req && (req.status === 'executing' || req.status === 'authorized'))
        await tx.updateLockedRequest(
          transition(req, { type: 'finish_execution', ok: outcome.status === 'succeeded' }, done),
          req.version,
        );
    }
    const audit: AuditEventInput[] = [
      {
        type: outcome.status === 'succeeded' ? (input.auditType ?? 'executed') : 'failed',
        actor: `system:${ctx.owner}`,
        threadId: input.threadId ?? null,
        requestId: input.requestId ?? null,
        payload: {
          tool: input.tool,
          args: input.args,
          actionHash: hash,
          idempotencyKey: input.key,
          attempt: claim.row.attempts,
          ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
          ...input.auditPayload,
        },
      },
    ];
    if (input.notifyRole && outcome.status === 'succeeded') {
      await tx.enqueueJob({
        id: `job_${input.key}`,
        kind: 'notify',
        threadId: input.threadId ?? null,
        requestId: input.requestId ?? null,
        payload: { role: input.notifyRole, fyi: true, tool: input.tool, args: input.args },
        runAt: done,
        createdAt: done,
      });
    }
    await tx.appendAudit(audit, done);
    return { thread: await threadReading };
  });
  if (!recorded) {
    // Our lease ran out and another process took the claim over: its record stands.
    const row = await ctx.store.getExecution(input.key);
    return row ? replay<T>(row) : { status: 'in_progress', key: input.key, leaseUntil: null };
  }
  ctx.emit({
    type: 'execution.finished',
    requestId: input.requestId ?? null,
    threadId: input.threadId ?? null,
    tool: input.tool,
    status: outcome.status,
    ...(input.requestId
      ? {}
      : { tier: typeof input.auditPayload?.tier === 'string' ? input.auditPayload.tier : 'auto' }),
  });
  const thread = recorded.thread ? { thread: recorded.thread } : {};
  return outcome.status === 'succeeded'
    ? { status: 'succeeded', result: outcome.result, replayed: false, key: input.key, ...thread }
    : { status: 'failed', error: outcome.error, replayed: false, key: input.key, ...thread };
}
