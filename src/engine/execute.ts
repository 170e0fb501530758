import { actionHash, transition, type ApprovalRequest, type AuditEventInput } from '../core/index.ts';
import type { ExecutionRow, StoreTx, ThreadRow } from '../store/types.ts';
import type { EngineContext, EngineEvent } from './context.ts';
import { commitWithEvents } from './commit-events.ts';
import { writeCheckpoint } from './pause.ts';
import { runUnclaimed } from './unclaimed.ts';
import { assertRunnable, notClaimed, replay } from './ledger-answers.ts';
import { enqueueApprovalFailed } from './approval-failed.ts';
import { attemptOwner, takeRead, useClaim } from './pre-claim.ts';
import { again, claimMoved, keyTaken } from './recheck.ts';
import type { ExecuteOptions, ExecutionInput, ExecutionOutcome } from './execute-types.ts';

export type { ExecuteOptions, ExecutionInput, ExecutionOutcome } from './execute-types.ts';

/** The key binding an execution to one request and one exact action. */
export function idempotencyKey(requestId: string, hash: string): string {
  return `${requestId}:${hash}`;
}

/** What `fn` came to, before it is recorded. */
type RunOutcome<T> = { status: 'succeeded'; result: T } | { status: 'failed'; error: string };

/**
 * The claim as the ledger answers it: held by this call now (its attempt; with the request as the
 * claim left it, `executing`, when the claim is for one), or the row that already holds the key.
 */
type Claim = { claimed: true; attempts: number; request?: ApprovalRequest } | { claimed: false; row: ExecutionRow };

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
  // A `notify` call's job and a caller's checkpoint commit with a claim: those keep the claimed path.
  if (opts.unclaimed && !input.notifyRole && !opts.checkpoint) return executeUnclaimed(ctx, input, fn, opts);
  const leaseMs = opts.leaseMs ?? ctx.leaseMs;
  const hash = actionHash(input.tool, input.args);
  const now = ctx.now();
  // 1. Claim, and commit the claim before anything runs: from here on a crash leaves a claim that
  //    another process takes over after its lease, never a side effect nobody knows about.
  // Told with the commit, whether or not this call holds the claim.
  const cp = opts.checkpoint;
  // A claim taken with the decision, if it still stands, is the first attempt: no claim transaction.
  const issued =
    opts.claimed !== undefined &&
    useClaim(opts.claimed, { key: input.key, hash, requestId: input.requestId, process: ctx.owner }, now, leaseMs);
  const held = issued !== false;
  // This attempt's name in the ledger: its renewals and its outcome are fenced by it.
  const owner = issued ? issued.owner : attemptOwner(ctx.owner);
  // The request as this engine read it (Interlock.callOutcome), if the caller passed that very object
  // for this call: the claim is written from the engine's copy without reading first.
  const read = held ? undefined : takeRead(opts.request);
  const known = read && read.id === input.requestId && read.actionHash === hash ? read : undefined;
  const claimed = (how: ClaimWrite) =>
    commitWithEvents(
      ctx,
      (tx) => claimInTx(tx, input, { owner, hash, leaseMs, now, cp, how }),
      (): EngineEvent[] => (cp ? [{ type: 'thread.status', threadId: cp.thread.id, status: cp.status }] : []),
    );
  // An automatic call's key is almost always new: inserted without asking first, else claimed asking.
  //    An approved call whose request the engine read is claimed from it; if it moved since, reading.
  const first: ClaimWrite = !input.requestId ? 'fresh' : known ? { from: known } : 'read';
  const claim = held ? undefined : await claimed(first).catch(again(() => claimed('read')));
  // 2. Not ours: the key already finished, or another process holds it; nothing runs.
  if (claim && !claim.claimed) return notClaimed<T>(claim.row, input, hash);
  const attempt = claim?.attempts ?? 1;
  // The request as this claim left it: its outcome can be written without reading it first.
  //    Only a row the engine read itself, or kept when its decision issued the claim: never the caller's object.
  const claimedRequest = issued ? issued.request : claim?.request;
  // 3. Run the side effect, outside any transaction (it may be slow), with the claim's lease kept alive.
  const outcome = await runClaimed(ctx, input, fn, { owner, leaseMs, attempt }, opts.abandonIf);
  // 4. Record the outcome, its request's move and its audit in one transaction, fenced by the claim.
  const done = ctx.now();
  //    The execution is told about with that commit, and only if this process recorded it.
  const record = (request: ApprovalRequest | undefined, checked: boolean) =>
    commitWithEvents(
      ctx,
      (tx) =>
        recordOutcome(ctx, tx, input, hash, outcome, {
          owner,
          attempt,
          done,
          request,
          checked,
          readThread: opts.readThread,
        }),
      (r): EngineEvent[] =>
        r
          ? [
              {
                type: 'execution.finished',
                requestId: input.requestId ?? null,
                threadId: input.threadId ?? null,
                tool: input.tool,
                status: outcome.status,
                ...(input.requestId ? {} : { tier: autoTier(input) }),
              },
            ]
          : [],
    );
  // The claim taken over, or the request moved (an abort): recorded again reading both, as they stand.
  //    The second time always reads: an automatic call too, whose claim another process may now hold.
  const fast = claimedRequest?.status === 'executing' ? claimedRequest : undefined;
  const recorded = await record(fast, !input.requestId || fast !== undefined).catch(
    again(() => record(undefined, false)),
  );
  if (!recorded) {
    // Our lease ran out and another process took the claim over: its record stands.
    const row = await ctx.store.getExecution(input.key);
    return row ? replay<T>(row) : { status: 'in_progress', key: input.key, leaseUntil: null };
  }
  const row = await recorded.thread;
  const thread = row ? { thread: row } : {};
  return outcome.status === 'succeeded'
    ? { status: 'succeeded', result: outcome.result, replayed: false, key: input.key, ...thread }
    : { status: 'failed', error: outcome.error, replayed: false, key: input.key, ...thread };
}

/** An automatic call with a key of its own: run, then recorded with others' in one commit; told after it. */
async function executeUnclaimed<T>(
  ctx: EngineContext,
  input: ExecutionInput,
  fn: (run: { idempotencyKey: string; attempt: number }) => Promise<T>,
  opts: ExecuteOptions,
): Promise<ExecutionOutcome<T>> {
  const outcome = await runUnclaimed(
    ctx,
    input,
    autoTier(input),
    fn,
    (o, hash) => outcomeAudit(ctx, input, hash, o, 1),
    opts.abandonIf,
  );
  ctx.emit({
    type: 'execution.finished',
    requestId: null,
    threadId: input.threadId ?? null,
    tool: input.tool,
    status: outcome.status,
    tier: autoTier(input),
  });
  return outcome.status === 'succeeded'
    ? { status: 'succeeded', result: outcome.result, replayed: false, key: input.key }
    : { status: 'failed', error: outcome.error, replayed: false, key: input.key };
}

/** The tier an automatic call ran at, so every call is counted (the interrupt rate); from the caller's "why". */
function autoTier(input: ExecutionInput): string {
  return typeof input.auditPayload?.tier === 'string' ? input.auditPayload.tier : 'auto';
}

/** The ledger row a claim asks for, bound to this exact action (its hash) and leased to this attempt. */
function claimRow(owner: string, input: ExecutionInput, hash: string, leaseMs: number, now: number) {
  return {
    key: input.key,
    threadId: input.threadId ?? null,
    tool: input.tool,
    args: input.args,
    actionHash: hash,
    leaseOwner: owner,
    leaseUntil: now + leaseMs,
    createdAt: now,
  };
}

/**
 * How a claim is written: `read` reads the request under lock and the ledger row first; `fresh` (an
 * automatic call's new key) and `from` (an approved call's request as the engine read it) write
 * without reading, as checked writes that fail the transaction with {@link Recheck} if a row is not
 * as expected.
 */
type ClaimWrite = 'read' | 'fresh' | { from: ApprovalRequest };

/**
 * Step 1, inside the claim's transaction: the caller's checkpoint (if any), then the claim. A
 * request's action is claimed only when the request authorizes exactly it; the request moves to
 * `executing` with the claim, so the two commit (or roll back) together.
 */
async function claimInTx(
  tx: StoreTx,
  input: ExecutionInput,
  c: { owner: string; hash: string; leaseMs: number; now: number; cp: ExecuteOptions['checkpoint']; how: ClaimWrite },
): Promise<Claim> {
  const { owner, hash, leaseMs, now, cp, how } = c;
  if (typeof how === 'object') return claimFromRead(tx, input, { ...c, from: how.from });
  // The checkpoint's first statement and the request's lock are asked for together (one round
  // trip), the thread row first, as every transaction that takes both does.
  const checkpointing = cp ? writeCheckpoint(tx, cp.thread, cp.checkpoint, cp.status, now) : undefined;
  const reading = input.requestId ? tx.getRequest(input.requestId, { forUpdate: true }) : undefined;
  reading?.catch(() => undefined); // awaited below; a failure fails the transaction either way
  // The claim is asked for with them, before the request is checked: if a check below refuses,
  // the transaction rolls back and the claim with it.
  const claiming = input.requestId
    ? tx.claimExecution({ ...claimRow(owner, input, hash, leaseMs, now), requestId: input.requestId }, now)
    : undefined;
  claiming?.catch(() => undefined);
  if (cp) {
    await checkpointing;
    if (cp.audit?.length) await tx.appendAudit(cp.audit, now);
  }
  if (!input.requestId) {
    const row = { ...claimRow(owner, input, hash, leaseMs, now), requestId: null, tier: autoTier(input) };
    // `fresh`: a checked insert, sent with the COMMIT; a key already there fails it with Recheck.
    if (how === 'fresh') return tx.insertClaim(row, now, keyTaken).then(() => ({ claimed: true, attempts: 1 }));
    return held(await tx.claimExecution(row, now));
  }
  const req = await reading;
  assertRunnable(req, input.requestId, hash);
  const answer = held((await claiming)!);
  if (!answer.claimed) return answer;
  if (req.status !== 'authorized') return { ...answer, request: req };
  const next = transition(req, { type: 'start_execution' }, now);
  await tx.updateLockedRequest(next, req.version);
  return { ...answer, request: next };
}

/**
 * An approved call's claim written from the request as the engine read it, authorized at its version:
 * the request's move to `executing`, checked against that version, then the claim, a checked insert
 * (the request before the ledger row, the order every claim takes them). Nothing is read: one round
 * trip on PostgreSQL, with the COMMIT. A request that moved since, or a key claimed already, fails the
 * transaction with {@link Recheck}, and the caller claims reading.
 */
async function claimFromRead(
  tx: StoreTx,
  input: ExecutionInput,
  c: {
    owner: string;
    hash: string;
    leaseMs: number;
    now: number;
    cp: ExecuteOptions['checkpoint'];
    from: ApprovalRequest;
  },
): Promise<Claim> {
  const { owner, hash, leaseMs, now, cp, from } = c;
  assertRunnable(from, input.requestId!, hash);
  // Rows in the order every transaction takes them: the thread (the checkpoint), the request, the
  // ledger row, and the audit chain last (docs/architecture.md).
  const checkpointing = cp ? writeCheckpoint(tx, cp.thread, cp.checkpoint, cp.status, now) : undefined;
  checkpointing?.catch(() => undefined); // awaited below; a failure fails the transaction either way
  const next = transition(from, { type: 'start_execution' }, now);
  await tx.updateLockedRequest(next, from.version, claimMoved);
  await tx.insertClaim({ ...claimRow(owner, input, hash, leaseMs, now), requestId: input.requestId! }, now, keyTaken);
  await checkpointing;
  if (cp?.audit?.length) await tx.appendAudit(cp.audit, now);
  return { claimed: true, attempts: 1, request: next };
}

/** The ledger's answer to a claim, as {@link Claim}. */
function held(c: { claimed: boolean; row: ExecutionRow }): Claim {
  return c.claimed ? { claimed: true, attempts: c.row.attempts } : { claimed: false, row: c.row };
}

/**
 * Step 3: run `fn` under the claim. A failure is an outcome to record, except one `abandonIf`
 * names: that stopped before any side effect, so the claim is marked abandoned and the error rethrown.
 */
async function runClaimed<T>(
  ctx: EngineContext,
  input: ExecutionInput,
  fn: (run: { idempotencyKey: string; attempt: number }) => Promise<T>,
  claim: { owner: string; leaseMs: number; attempt: number },
  abandonIf: ExecuteOptions['abandonIf'],
): Promise<RunOutcome<T>> {
  const { owner, leaseMs, attempt } = claim;
  // A side effect may outlast the claim's lease (a slow API): renew it while it runs, so no
  // other process takes the claim over and repeats the call.
  const renewal = setInterval(
    () => void ctx.store.renewExecution(input.key, owner, ctx.now() + leaseMs).catch(() => undefined),
    Math.max(50, leaseMs / 3),
  );
  renewal.unref();
  try {
    return { status: 'succeeded', result: await fn({ idempotencyKey: input.key, attempt }) };
  } catch (err) {
    if (abandonIf?.(err)) {
      clearInterval(renewal);
      await ctx.store.transaction((tx) => tx.finishExecution(input.key, owner, { status: 'abandoned' }, ctx.now()));
      throw err;
    }
    return { status: 'failed', error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearInterval(renewal);
  }
}

/** What the outcome's transaction knows besides the outcome. */
interface Recording {
  /** The claim's owner in the ledger: this attempt's ({@link attemptOwner}). */
  owner: string;
  attempt: number;
  /** When the call finished. */
  done: number;
  /** The request as this process's claim left it (`executing`), when it knows it; see {@link recordOutcome}. */
  request: ApprovalRequest | undefined;
  /** Written without reading first (checked writes): an automatic call, or a call whose `request` is known. */
  checked: boolean;
  readThread: boolean | undefined;
}

/**
 * Step 4, inside the outcome's transaction: finish the ledger row (false when the lease was lost
 * and someone else holds the claim: nothing else is written), then the request's move, the
 * `notify` tier's job and the audit event. Returns the thread's row when `readThread` asked for it
 * (read in the transaction, settled once it commits).
 *
 * When nothing needs reading first — an automatic call, or a request whose version this claim
 * knows — every write is a checked one and the whole transaction is one round trip on PostgreSQL:
 * while this process holds the claim, nothing else moves its row or its request. Should one have
 * moved anyway (the lease lapsed and another process took the claim over; an abort), the
 * transaction fails with {@link ClaimMoved}, nothing of it is written, and the caller records the
 * outcome again reading both.
 */
async function recordOutcome<T>(
  ctx: EngineContext,
  tx: StoreTx,
  input: ExecutionInput,
  hash: string,
  outcome: RunOutcome<T>,
  r: Recording,
): Promise<false | { thread: Promise<ThreadRow | undefined> | undefined }> {
  const finished =
    outcome.status === 'succeeded'
      ? { status: 'succeeded' as const, result: outcome.result ?? null }
      : { status: 'failed' as const, error: outcome.error };
  const checked = r.checked;
  let req: ApprovalRequest | undefined = r.request;
  if (checked) {
    await tx.finishHeldExecution(input.key, r.owner, finished, r.done, claimMoved);
  } else {
    const finishing = tx.finishExecution(input.key, r.owner, finished, r.done);
    // Asked for together with the outcome (one round trip), after it: the ledger row is locked first, as before.
    const reading = input.requestId ? tx.getRequest(input.requestId, { forUpdate: true }) : undefined;
    reading?.catch(() => undefined); // awaited below, or not needed when the lease was lost
    if (!(await finishing)) return false;
    req = await reading;
  }
  // An execution finishes its request once; a request already final (a replay's) stays as it is.
  if (req && (req.status === 'executing' || req.status === 'authorized')) {
    await tx.updateLockedRequest(
      transition(req, { type: 'finish_execution', ok: outcome.status === 'succeeded' }, r.done),
      req.version,
      ...(checked ? [claimMoved] : []),
    );
    // The people who approved it are told their approval did not happen, with the failure.
    if (outcome.status === 'failed') await enqueueApprovalFailed(tx, req, outcome.error, r.done);
  }
  if (input.notifyRole && outcome.status === 'succeeded') {
    await tx.enqueueJob({
      id: `job_${input.key}`,
      kind: 'notify',
      threadId: input.threadId ?? null,
      requestId: input.requestId ?? null,
      payload: { role: input.notifyRole, fyi: true, tool: input.tool, args: input.args },
      runAt: r.done,
      createdAt: r.done,
    });
  }
  await tx.appendAudit([outcomeAudit(ctx, input, hash, outcome, r.attempt)], r.done);
  // The thread as the tool left it (an abort asked while it ran shows): asked for last, so on
  // PostgreSQL it travels with the writes and the COMMIT (a failure of it fails the transaction);
  // on SQLite it is read before the COMMIT, and a failure of it is the caller's once it committed.
  const thread = r.readThread && input.threadId ? tx.getThread(input.threadId) : undefined;
  thread?.catch(() => undefined);
  return { thread };
}

/** The `executed` (or `auto_executed`) or `failed` event of an outcome. */
function outcomeAudit<T>(
  ctx: EngineContext,
  input: ExecutionInput,
  hash: string,
  outcome: RunOutcome<T>,
  attempt: number,
): AuditEventInput {
  return {
    type: outcome.status === 'succeeded' ? (input.auditType ?? 'executed') : 'failed',
    actor: `system:${ctx.owner}`,
    threadId: input.threadId ?? null,
    requestId: input.requestId ?? null,
    payload: {
      tool: input.tool,
      args: input.args,
      actionHash: hash,
      idempotencyKey: input.key,
      attempt,
      ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
      ...input.auditPayload,
    },
  };
}
