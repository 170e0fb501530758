// A steady stream of work over real HTTP, as a deployment sees it: an operator
// starts threads (POST /api/v1/threads) at a fixed rate, and reviewers work the
// queue (approve, edit, reject, respond) through the decisions endpoint. Every
// answer is recorded with what is known about it: accepted, refused with a code,
// or unknown (the server died while the request was in flight).
import { BANDS } from './fixtures/chaos.config.ts';

/** A reviewer the traffic decides as. */
export interface ReviewerCredential {
  id: string;
  token: string;
  roles: string[];
}

/** Options of {@link startTraffic}. */
export interface TrafficOptions {
  /** Base URL of the service. */
  url: string;
  /** Token of a reviewer with the `operator` role: starts threads and reads the whole queue. */
  operatorToken: string;
  /** Reviewers who decide; each decides only requests of their roles. */
  reviewers: ReviewerCredential[];
  /** New threads per second. */
  threadsPerSecond: number;
  /** How often the reviewers look at the queue (default 150 ms). */
  decideEveryMs?: number;
  /** Thread ids are `<prefix>-<n>`. */
  prefix: string;
  /** Seed of the pseudo-random choices (amounts, decisions). */
  seed: number;
  /** Cap on thread starts in flight at once (default 16). */
  maxInFlight?: number;
}

/** What the traffic knows about a thread it tried to start. */
export interface StartedThread {
  args: { orderId: string; amount: number };
  /** `accepted`: 202 received. `unknown`: the connection broke after the request was sent. */
  outcome: 'accepted' | 'unknown';
}

/** A decision the server accepted (200). */
export interface AcceptedDecision {
  requestId: string;
  reviewerId: string;
  type: DecisionType;
  expectedVersion: number;
}

type DecisionType = 'approve' | 'edit' | 'reject' | 'respond';

/** Counters of one traffic run. */
export interface TrafficStats {
  threadPosts: number;
  threadsAccepted: number;
  /** The connection was refused: the service was down, nothing was sent. */
  threadsNotDelivered: number;
  threadsUnknown: number;
  threadErrors: Record<string, number>;
  decisionPosts: number;
  decisionsAccepted: number;
  decisionsByType: Record<DecisionType, number>;
  /** 4xx answers by code (stale versions after a restart, a sweeper that got there first…). */
  decisionsRefused: Record<string, number>;
  decisionsNotDelivered: number;
  decisionsUnknown: number;
  /** Queue reads that failed (service down). */
  queueReadErrors: number;
  /** Response times of acknowledged thread starts and decisions. */
  latencyMs: { thread: number[]; decision: number[] };
}

/** A running traffic generator. */
export interface Traffic {
  readonly stats: TrafficStats;
  readonly threads: ReadonlyMap<string, StartedThread>;
  readonly decisions: readonly AcceptedDecision[];
  /** Start one thread now for a refund of `amount` (outside the random schedule); resolves to its id once answered. */
  propose(amount: number): Promise<string>;
  /** Stop starting threads; let the in-flight requests finish. */
  stopThreads(): Promise<void>;
  /** Stop everything and wait for requests in flight. */
  stop(): Promise<void>;
}

/** mulberry32: a small seeded generator, so a run's choices can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable number 0..99 from a string: the same request always gets the same plan. */
function bucket(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0) % 100;
}

/** Refund amounts across the policy's bands: auto, decided, left to time out (both defaults), escalated. */
function proposeAmount(rnd: () => number): number {
  const r = rnd();
  const within = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo));
  if (r < 0.25) return within(1, BANDS.autoMax + 1);
  if (r < 0.6) return within(BANDS.autoMax + 1, BANDS.expireRejectFrom);
  if (r < 0.68) return within(BANDS.expireRejectFrom, BANDS.expireApproveFrom);
  if (r < 0.76) return within(BANDS.expireApproveFrom, BANDS.escalateFrom);
  return within(BANDS.escalateFrom, 2000);
}

interface QueueItem {
  id: string;
  ruleId: string;
  args: { orderId: string; amount: number };
  requiredRole: string;
  version: number;
  actionHash: string;
  approvalsRequired: number;
}

/** The decision a reviewer takes on a request, fixed by its id. */
function plan(item: QueueItem): { type: DecisionType; args?: Record<string, unknown>; message?: string } {
  const b = bucket(item.id);
  const amount = item.args.amount;
  if (item.approvalsRequired > 1) {
    if (b < 75) return { type: 'approve' };
    if (b < 88) return { type: 'reject', message: 'Not this time.' };
    return { type: 'edit', args: { ...item.args, amount: amount + 1 } }; // same tier: a fresh quorum
  }
  if (b < 40) return { type: 'approve' };
  if (b < 55)
    return { type: 'edit', args: { ...item.args, amount: amount === BANDS.autoMax + 1 ? amount + 1 : amount - 1 } };
  if (b < 65) return { type: 'edit', args: { ...item.args, amount: amount + 1000 } }; // raises the tier: a new request
  if (b < 82) return { type: 'reject', message: 'Refund declined: outside the policy.' };
  return { type: 'respond', message: 'Store credit issued instead of a refund.' };
}

type Sent<T> =
  { kind: 'answer'; status: number; body: T } | { kind: 'not_delivered' } | { kind: 'unknown'; error: string };

/** A request whose fate is classified: answered, never delivered (connection refused), or unknown. */
async function send<T>(url: string, token: string, body?: unknown): Promise<Sent<T>> {
  try {
    const res = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { kind: 'answer', status: res.status, body: parsed as T };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return { kind: 'not_delivered' };
    return { kind: 'unknown', error: code ?? (err as Error).message };
  }
}

/**
 * Start threads and decisions over HTTP until stopped. Thread ids are chosen
 * by the client, so a start whose answer was lost can still be looked up.
 */
export function startTraffic(o: TrafficOptions): Traffic {
  const rnd = seededRandom(o.seed);
  const decideEveryMs = o.decideEveryMs ?? 150;
  const maxInFlight = o.maxInFlight ?? 16;
  const stats: TrafficStats = {
    threadPosts: 0,
    threadsAccepted: 0,
    threadsNotDelivered: 0,
    threadsUnknown: 0,
    threadErrors: {},
    decisionPosts: 0,
    decisionsAccepted: 0,
    decisionsByType: { approve: 0, edit: 0, reject: 0, respond: 0 },
    decisionsRefused: {},
    decisionsNotDelivered: 0,
    decisionsUnknown: 0,
    queueReadErrors: 0,
    latencyMs: { thread: [], decision: [] },
  };
  const threads = new Map<string, StartedThread>();
  const decisions: AcceptedDecision[] = [];
  /** Reviewers who decided (or may have: unknown outcome) each request. */
  const voted = new Map<string, Set<string>>();
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  let threadsOn = true;
  let decisionsOn = true;

  async function startOne(amount = proposeAmount(rnd)): Promise<string> {
    const id = `${o.prefix}-${++n}`;
    const args = { orderId: `ORD-${n}`, amount };
    stats.threadPosts++;
    const t0 = performance.now();
    const r = await send<{ error?: { code: string } }>(`${o.url}/api/v1/threads`, o.operatorToken, {
      agent: 'chaos',
      input: JSON.stringify(args),
      threadId: id,
    });
    if (r.kind === 'not_delivered') stats.threadsNotDelivered++;
    else if (r.kind === 'unknown' || r.status >= 500) {
      stats.threadsUnknown++;
      threads.set(id, { args, outcome: 'unknown' });
    } else if (r.status === 202) {
      stats.threadsAccepted++;
      stats.latencyMs.thread.push(performance.now() - t0);
      threads.set(id, { args, outcome: 'accepted' });
    } else {
      const code = r.body.error?.code ?? String(r.status);
      stats.threadErrors[code] = (stats.threadErrors[code] ?? 0) + 1;
    }
    return id;
  }

  const starter = (async () => {
    const interval = 1000 / o.threadsPerSecond;
    let next = Date.now();
    while (threadsOn) {
      next += interval;
      if (inFlight.size < maxInFlight) {
        const p: Promise<void> = startOne().then(() => void inFlight.delete(p));
        inFlight.add(p);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();

  async function decideOnce(): Promise<void> {
    const q = await send<{ items: QueueItem[] }>(
      `${o.url}/api/v1/approvals?status=pending&order=expiry&limit=200`,
      o.operatorToken,
    );
    if (q.kind !== 'answer' || q.status !== 200) {
      stats.queueReadErrors++;
      return;
    }
    for (const item of q.body.items) {
      if (!decisionsOn) return;
      // These bands are left to the sweeper, which applies their timeout defaults.
      if (item.ruleId === 'lapse-reject' || item.ruleId === 'lapse-approve') continue;
      const done = voted.get(item.id) ?? new Set<string>();
      const reviewer = o.reviewers.find((r) => r.roles.includes(item.requiredRole) && !done.has(r.id));
      if (!reviewer) continue;
      const p = plan(item);
      const body = {
        type: p.type,
        expectedVersion: item.version,
        actionHash: item.actionHash,
        ...(p.args ? { args: p.args } : {}),
        ...(p.message !== undefined ? { message: p.message } : {}),
      };
      stats.decisionPosts++;
      const t0 = performance.now();
      const r = await send<{ error?: { code: string } }>(
        `${o.url}/api/v1/approvals/${encodeURIComponent(item.id)}/decision`,
        reviewer.token,
        body,
      );
      if (r.kind === 'not_delivered') {
        stats.decisionsNotDelivered++;
        return;
      }
      done.add(reviewer.id);
      voted.set(item.id, done);
      if (r.kind === 'unknown' || r.status >= 500) {
        stats.decisionsUnknown++;
        continue;
      }
      if (r.status === 200) {
        stats.decisionsAccepted++;
        stats.latencyMs.decision.push(performance.now() - t0);
        stats.decisionsByType[p.type]++;
        decisions.push({ requestId: item.id, reviewerId: reviewer.id, type: p.type, expectedVersion: item.version });
      } else {
        const code = r.body.error?.code ?? String(r.status);
        stats.decisionsRefused[code] = (stats.decisionsRefused[code] ?? 0) + 1;
        if (code === 'rate_limited') return;
        if (code === 'stale_version') done.delete(reviewer.id); // the request moved on (another approval): look again
      }
    }
  }

  const decider = (async () => {
    while (decisionsOn) {
      await decideOnce();
      await new Promise((r) => setTimeout(r, decideEveryMs));
    }
  })();

  async function stopThreads(): Promise<void> {
    threadsOn = false;
    await starter;
    await Promise.all([...inFlight]);
  }

  return {
    stats,
    threads,
    decisions,
    propose: (amount) => startOne(amount),
    stopThreads,
    async stop() {
      await stopThreads();
      decisionsOn = false;
      await decider;
    },
  };
}
