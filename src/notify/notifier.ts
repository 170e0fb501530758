import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import type { AuditEventInput } from '../core/index.ts';
import type { Interlock } from '../engine/interlock.ts';
import { auditEvent } from '../engine/audit-events.ts';
import type { JobRow, Store } from '../store/types.ts';
import { DEFAULT_RETRY, retryDelay, type RetryPolicy } from './backoff.ts';
import { DeliveryError } from './delivery-error.ts';
import { truncate } from './escape.ts';
import { approvalFailedMessage, approvalRequestedMessage, fyiMessage, type NotificationMessage } from './message.ts';
import { isHttpUrl, parseOptions } from './options.ts';
import { createRouting, type RoutedChannel, type Routing, type RoutingConfig } from './routing.ts';

/** The job kind the engine enqueues for notifications. */
export const NOTIFY_JOB_KIND = 'notify';
/** Actor of the audit events the notifier writes. */
export const NOTIFIER_ACTOR = 'system:notifier';

/** Options of {@link createNotifier}: `interlock`, or `store` (+ `now`). */
export interface NotifierOptions {
  /** The engine; its store and clock are used. */
  interlock?: Interlock;
  /** The store, when there is no engine at hand. */
  store?: Store;
  /** Clock in epoch ms (default: the engine's, else `Date.now`). */
  now?: () => number;
  /** Channels and routes, or routing already built with {@link createRouting}. */
  routing: Routing | RoutingConfig;
  /** Public URL of the reviewer UI; review links are `${baseUrl}/approvals/${id}`. */
  baseUrl: string;
  /** Lease owner name (default `notifier:host:pid:random`). */
  owner?: string;
  /**
   * How long a claimed job is held unless renewed (default: the engine's `leaseMs`). The lease is
   * renewed every third of it while the job is being sent, so a slow channel keeps its job; a
   * notifier that dies holding one loses it to another after this long.
   */
  leaseMs?: number;
  /** Longest wait for one channel, whatever its own timeout (default 30 s). */
  sendTimeoutMs?: number;
  /** Attempts and backoff (default 8 attempts, 2 s doubling, capped at 10 min). */
  retry?: Partial<RetryPolicy>;
}

/** What one {@link Notifier.runOnce} did. */
export interface NotifyRunResult {
  /** Jobs claimed. */
  claimed: number;
  /** Sent to every routed channel and completed. */
  delivered: number;
  /** At least one channel failed; scheduled again. */
  retried: number;
  /** Given up (attempts exhausted, request missing, or no channel for the role); audited as `failed`. */
  dead: number;
  /** Completed without sending: the request was already decided or expired. */
  skipped: number;
  /** The lease ran out before the outcome was written; whoever holds the job now records it. */
  lost: number;
}

/** Delivers the notification outbox. */
export interface Notifier {
  /**
   * Claim up to `limit` due notification jobs (default 10) and deliver them.
   * Never throws for a channel's failure (that is a retry); throws only when
   * the store fails, after every claimed job was handled.
   */
  runOnce(limit?: number): Promise<NotifyRunResult>;
  /** Lease owner name of this notifier. */
  readonly owner: string;
}

const schema = z
  .object({
    interlock: z
      .custom<Interlock>(
        (v) => typeof v === 'object' && v !== null && 'jobs' in v && 'audit' in v,
        'must be the engine from createInterlock()',
      )
      .optional(),
    now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function returning epoch ms').optional(),
    routing: z.custom<Routing | RoutingConfig>(
      (v) => typeof v === 'object' && v !== null,
      'must be { channels, routes, default? }',
    ),
    baseUrl: z
      .string()
      .refine(isHttpUrl, 'must be the public http(s) URL of the reviewer UI, such as "https://interlock.example.com"'),
    owner: z.string().min(1).optional(),
    leaseMs: z.number().int().min(100, 'must be at least 100 ms').optional(),
    sendTimeoutMs: z.number().int().positive().optional(),
    retry: z
      .object({
        maxAttempts: z.number().int().min(1).optional(),
        baseDelayMs: z.number().int().positive().optional(),
        maxDelayMs: z.number().int().positive().optional(),
      })
      .optional(),
  })
  .refine((o) => o.interlock !== undefined, {
    message: 'pass "interlock" (from createInterlock): the notifier claims and settles jobs through the engine',
    path: ['interlock'],
  });

type Outcome = 'delivered' | 'retried' | 'dead' | 'skipped' | 'lost';

/**
 * Deliver notification jobs from the outbox: each job is claimed under a
 * lease, sent to every channel routed for its role, then completed together
 * with a `notified` audit event. When a channel fails the whole job is retried
 * with exponential backoff, so a channel that already succeeded may receive
 * the message again; every channel gets the job id as a delivery id to
 * deduplicate on. A failing channel never touches the approval request: it
 * stays pending and decidable.
 * @example
 * const notifier = createNotifier({ interlock: il, baseUrl: 'https://interlock.example.com',
 *   routing: { channels: { slack: slackChannel({ webhookUrl }) }, default: ['slack'] } });
 * setInterval(() => void notifier.runOnce().catch(console.error), 2000);
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const o = parseOptions(schema, options, 'createNotifier', 'it needs { interlock, routing, baseUrl }.');
  const il = o.interlock!;
  const d: Delivery = {
    il,
    jobs: il.jobs,
    now: o.now ?? (() => il.now()),
    routing: 'channelsFor' in o.routing ? o.routing : createRouting(o.routing),
    owner: o.owner ?? `notifier:${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    sendTimeoutMs: o.sendTimeoutMs ?? 30_000,
    retry: { ...DEFAULT_RETRY, ...o.retry },
    baseUrl: o.baseUrl,
  };
  const leaseMs = o.leaseMs ?? il.leaseMs;

  return {
    owner: d.owner,
    async runOnce(limit = 10) {
      const t = d.now();
      const claimed = await d.jobs.claimJobs([NOTIFY_JOB_KIND], d.owner, t, t + leaseMs, limit);
      const settled = await whileLeased(d, leaseMs, claimed, (job) => deliver(d, job));
      const result: NotifyRunResult = {
        claimed: claimed.length,
        delivered: 0,
        retried: 0,
        dead: 0,
        skipped: 0,
        lost: 0,
      };
      for (const s of settled) if (s.status === 'fulfilled') result[s.value]++;
      const failure = settled.find((s) => s.status === 'rejected');
      // A store failure leaves the job leased; it is claimed again when the lease runs out.
      if (failure) throw failure.reason;
      return result;
    },
  };
}

/** What delivering a job needs: the engine, the routing and the notifier's settings. */
interface Delivery {
  il: Interlock;
  jobs: Interlock['jobs'];
  now: () => number;
  routing: Routing;
  owner: string;
  sendTimeoutMs: number;
  retry: RetryPolicy;
  baseUrl: string;
}

/**
 * Run `fn` on every claimed job at once, renewing the leases of those not settled yet every third
 * of `leaseMs`: a channel slower than the lease keeps its job (no second send by another notifier),
 * while a notifier that dies stops renewing and its jobs go to another after one lease.
 */
async function whileLeased<T>(
  d: Delivery,
  leaseMs: number,
  jobs: readonly JobRow[],
  fn: (job: JobRow) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  if (jobs.length === 0) return [];
  const open = new Set(jobs.map((j) => j.id));
  const renewal = setInterval(
    () => void d.jobs.renewJobs([...open], d.owner, d.now() + leaseMs).catch(() => undefined),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  renewal.unref();
  try {
    return await Promise.allSettled(jobs.map((job) => fn(job).finally(() => open.delete(job.id))));
  } finally {
    clearInterval(renewal);
  }
}

/** Give a job up, audited as `notify_failed`: its request is left as it is (pending and decidable). */
async function giveUp(d: Delivery, job: JobRow, error: string, extra: Record<string, unknown>): Promise<Outcome> {
  const ok = await d.jobs.settle(job.id, d.owner, { status: 'dead', error }, [
    audit('notify_failed', job, { delivery: true, jobId: job.id, attempts: job.attempts, error, ...extra }),
  ]);
  return ok ? 'dead' : 'lost';
}

/** The message a job sends, or the outcome when there is nothing to send. */
async function messageOf(d: Delivery, job: JobRow): Promise<NotificationMessage | Outcome> {
  if (job.payload.fyi === true) return fyiMessage(job, d.baseUrl);
  if (job.requestId === null) return giveUp(d, job, 'notify job has no approval request id', {});
  const req = await d.il.getRequest(job.requestId);
  if (!req) return giveUp(d, job, `approval request ${job.requestId} does not exist`, {});
  // An approved action that failed: told whatever the request's state, with its approvers named.
  if (job.payload.approvalFailed === true)
    return approvalFailedMessage(job, req, await approverNames(d, job), d.baseUrl);
  // Nobody needs to be asked about a request that can no longer be decided.
  if (req.status !== 'pending' || d.now() >= req.expiresAt)
    return (await d.jobs.completeJob(job.id, d.owner, d.now())) ? 'skipped' : 'lost';
  return approvalRequestedMessage(req, d.baseUrl, typeof job.payload.role === 'string' ? job.payload.role : req.role);
}

/** The names of a failure notice's approvers, by reviewer id (those still known). */
async function approverNames(d: Delivery, job: JobRow): Promise<Map<string, string>> {
  const ids = Array.isArray(job.payload.approvers) ? job.payload.approvers.filter((a) => typeof a === 'string') : [];
  const rows = await Promise.all(ids.map((id) => d.il.reviewers.getReviewer(id)));
  return new Map(rows.flatMap((r) => (r ? [[r.id, r.name] as const] : [])));
}

/** Send one job to every channel routed for its role, then settle it: done, retried with backoff, or dead. */
async function deliver(d: Delivery, job: JobRow): Promise<Outcome> {
  const fyi = job.payload.fyi === true;
  const message = await messageOf(d, job);
  if (typeof message === 'string') return message;
  const role = message.role;
  const routed = d.routing.channelsFor(role);
  if (routed.length === 0) {
    return giveUp(
      d,
      job,
      `no channel is routed for role "${role}": add routes["${role}"] or a default list to the notifier's routing`,
      { role },
    );
  }

  const results = await Promise.all(routed.map((r) => sendOne(r, message, job, d.sendTimeoutMs)));
  const failed = results.filter((r) => r.error !== undefined);
  const sent = results.filter((r) => r.error === undefined).map((r) => r.name);
  if (failed.length === 0) {
    const ok = await d.jobs.settle(job.id, d.owner, { status: 'done' }, [
      audit('notified', job, {
        channels: sent,
        role,
        ...(fyi ? { fyi: true } : {}),
        ...(message.kind === 'approval_execution_failed' ? { approvalFailed: true } : {}),
        attempts: job.attempts,
      }),
    ]);
    return ok ? 'delivered' : 'lost';
  }

  const error = truncate(failed.map((f) => f.error).join('; '), 2000);
  const delay = retryDelay(job.attempts, d.retry);
  if (delay === null) return giveUp(d, job, error, { role, channels: failed.map((f) => f.name), succeeded: sent });
  return (await d.jobs.failJob(job.id, d.owner, error, d.now() + delay, d.now())) ? 'retried' : 'lost';
}

/** One channel's send, bounded by `sendTimeoutMs` whatever the channel's own timeout. */
async function sendOne(
  r: RoutedChannel,
  message: NotificationMessage,
  job: JobRow,
  sendTimeoutMs: number,
): Promise<{ name: string; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeliveryError(r.name, `gave no answer within ${sendTimeoutMs} ms; it will be retried.`)),
      sendTimeoutMs,
    );
  });
  try {
    await Promise.race([r.channel.send(message, { deliveryId: job.id, attempt: job.attempts }), timeout]);
    return { name: r.name };
  } catch (err) {
    // Named as routed (and audited), which may differ from the channel's own name.
    const reason = err instanceof DeliveryError ? err.reason : err instanceof Error ? err.message : String(err);
    return { name: r.name, error: `${r.name}: ${reason}` };
  } finally {
    clearTimeout(timer);
  }
}

function audit(type: 'notified' | 'notify_failed', job: JobRow, payload: Record<string, unknown>): AuditEventInput {
  return auditEvent(type, NOTIFIER_ACTOR, payload, { threadId: job.threadId, requestId: job.requestId });
}
