import { actionHash, InterlockUsageError, type AuditEventInput } from '../core/index.ts';
import type { FinishedExecution, Store } from '../store/types.ts';
import type { EngineContext } from './context.ts';

/**
 * Automatic calls whose key nothing can repeat, recorded after they ran.
 *
 * A claim committed before a side effect is what lets a retry under the same key find it and not run
 * it again. A call whose key was minted for it alone (the MCP gateway's automatic call without a
 * client call id: every such call is forwarded anyway) has no retry that could find it, so its claim
 * would buy nothing but a commit. It runs first; then its finished ledger row and its audit event are
 * written in one transaction, shared with the other such calls that finished meanwhile (one commit for
 * all of them: a group commit at the engine, on both backends). Its caller hears back only after that
 * commit, so no answer is given for a call that is not recorded. What it gives up: a crash while the
 * call runs leaves no `running` row behind (nobody could have taken that row over: its key was new).
 */

/** Rows one transaction records at most (bounds the statement's size and the first caller's wait). */
const MAX_BATCH = 64;

interface Pending {
  row: FinishedExecution;
  audit: AuditEventInput | undefined;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** How long a commit waits at most for calls still running to join it (ms). */
const MAX_WAIT_MS = 1;

/** A store's shared commits: what waits for the next one, and how many calls are running now. */
interface Queue {
  pending: Pending[];
  flushing: boolean;
  /** Unclaimed calls whose side effect is running: the next commit waits briefly for them. */
  running: number;
  /** Wakes a commit waiting for the running calls, when the last one finishes. */
  idle: (() => void) | undefined;
}

/** One queue per store: calls of every Interlock over one store share its commits. */
const queues = new WeakMap<Store, Queue>();

function queueOf(store: Store): Queue {
  let q = queues.get(store);
  if (!q) queues.set(store, (q = { pending: [], flushing: false, running: 0, idle: undefined }));
  return q;
}

/**
 * Record a finished execution (and its audit event) in the next shared transaction; resolves once it
 * committed. The first call starts a transaction after one turn of the event loop (with the calls
 * that finished in that turn); calls that finish while it runs go together in the next one.
 */
export function recordFinished(
  store: Store,
  row: FinishedExecution,
  audit: AuditEventInput | undefined,
  now: () => number,
): Promise<void> {
  const queue = queueOf(store);
  return new Promise<void>((resolve, reject) => {
    queue.pending.push({ row, audit, resolve, reject });
    if (queue.flushing) return;
    queue.flushing = true;
    void gather(queue).then(() => flush(store, queue, now));
  });
}

/**
 * Before a commit: one turn of the event loop (the answers of calls already waiting to be read join
 * it), and while other calls are still running, up to {@link MAX_WAIT_MS} for them to finish. On
 * SQLite a commit's sync holds the thread, so a call that misses a commit waits for the whole next one;
 * a call alone commits after the one turn.
 */
async function gather(q: Queue): Promise<void> {
  await new Promise<void>((r) => setImmediate(r));
  if (q.running === 0) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, MAX_WAIT_MS);
    q.idle = done;
    function done() {
      clearTimeout(timer);
      q.idle = undefined;
      // The call that finished last records itself in its own continuation: let that run first.
      setImmediate(resolve);
    }
  });
}

/** Count a call's side effect as running while `fn` runs: a commit about to start waits briefly for it. */
async function running<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const q = queueOf(store);
  q.running++;
  try {
    return await fn();
  } finally {
    if (--q.running === 0) q.idle?.();
  }
}

/** Record one batch; then the next one, after another turn of the event loop, while calls wait. */
async function flush(store: Store, q: Queue, now: () => number): Promise<void> {
  const batch = q.pending.splice(0, MAX_BATCH);
  const events = batch.flatMap((p) => (p.audit ? [p.audit] : []));
  try {
    await store.transaction(async (tx) => {
      await tx.recordExecutions(batch.map((p) => p.row));
      if (events.length) await tx.appendAudit(events, now());
    });
    for (const p of batch) p.resolve();
  } catch (err) {
    // The batch did not commit: every call in it hears why (none of them is recorded).
    for (const p of batch) p.reject(err);
  }
  if (q.pending.length > 0) void gather(q).then(() => flush(store, q, now));
  else q.flushing = false;
}

/** What `fn` came to. */
export type UnclaimedOutcome<T> = { status: 'succeeded'; result: T } | { status: 'failed'; error: string };

/**
 * Run an automatic call with no claim before it, then record its outcome (grouped). `audit` builds
 * its event from the outcome; `abandonIf` names errors that stopped before any side effect (recorded
 * as `abandoned`, without an event, and rethrown).
 */
export async function runUnclaimed<T>(
  ctx: EngineContext,
  input: {
    key: string;
    tool: string;
    args: Record<string, unknown>;
    threadId?: string | null;
    requestId?: string | null;
  },
  tier: string,
  fn: (run: { idempotencyKey: string; attempt: number }) => Promise<T>,
  audit: (outcome: UnclaimedOutcome<T>, hash: string) => AuditEventInput,
  abandonIf?: (err: unknown) => boolean,
): Promise<UnclaimedOutcome<T>> {
  if (input.requestId)
    throw new InterlockUsageError(
      'invalid_input',
      `Execution ${input.key} names request ${input.requestId}: an approved action runs only under its claim. Leave out "unclaimed".`,
      { details: { key: input.key, requestId: input.requestId } },
    );
  const hash = actionHash(input.tool, input.args);
  const started = ctx.now();
  let outcome: UnclaimedOutcome<T>;
  try {
    outcome = {
      status: 'succeeded',
      result: await running(ctx.store, () => fn({ idempotencyKey: input.key, attempt: 1 })),
    };
  } catch (err) {
    if (abandonIf?.(err)) {
      await recordFinished(ctx.store, row(input, hash, tier, started, ctx.now(), 'abandoned'), undefined, ctx.now);
      throw err;
    }
    outcome = { status: 'failed', error: err instanceof Error ? err.message : String(err) };
  }
  const done = ctx.now();
  const finished =
    outcome.status === 'succeeded'
      ? { ...row(input, hash, tier, started, done, 'succeeded'), result: outcome.result ?? null }
      : { ...row(input, hash, tier, started, done, 'failed'), error: outcome.error };
  await recordFinished(ctx.store, finished, audit(outcome, hash), ctx.now);
  return outcome;
}

function row(
  input: { key: string; tool: string; args: Record<string, unknown>; threadId?: string | null },
  hash: string,
  tier: string,
  createdAt: number,
  updatedAt: number,
  status: FinishedExecution['status'],
): FinishedExecution {
  return {
    key: input.key,
    threadId: input.threadId ?? null,
    tool: input.tool,
    args: input.args,
    actionHash: hash,
    status,
    result: undefined,
    error: null,
    createdAt,
    updatedAt,
    tier,
  };
}
