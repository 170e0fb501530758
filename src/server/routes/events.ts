import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { EngineEvent } from '../../engine/index.ts';
import { InterlockUsageError } from '../../core/index.ts';
import { canSeeRole, type Principal } from '../auth.ts';
import type { AppEnv, RouteDeps } from '../types.ts';

/** Options of the live event stream. */
export interface EventStreamOptions {
  /** Interval of the keep-alive comment (default 15 s). */
  heartbeatMs: number;
  /** Events buffered for a slow client before its stream is closed (it reconnects and reloads). */
  maxBuffered: number;
  /** Open streams, each with the function that ends it; the app ends them all when it closes. */
  open: Set<() => void>;
  /** Streams one reviewer may hold open at once; more are refused with 429 `too_many_streams`. */
  maxPerReviewer: number;
}

/** A reviewer opened more live streams than allowed; nothing was opened. */
export class TooManyStreamsError extends InterlockUsageError {
  constructor(max: number) {
    super(
      'too_many_streams',
      `You already have ${max} live event streams open; close one (a browser tab) and try again.`,
      { details: { max } },
    );
  }
}

/**
 * Whether `p` may see event `e`: the same rule as reading the request or the thread
 * it names (server/access.ts). Operators see everything; other reviewers see events
 * of requests of their roles and of threads that have such a request; workers'
 * deferrals go to operators only. `requestRole` and `threadVisible` look the
 * request or thread up (and may cache).
 */
async function visible(
  p: Principal,
  e: EngineEvent,
  requestRole: (id: string) => Promise<string | undefined>,
  threadVisible: (id: string) => Promise<boolean>,
): Promise<boolean> {
  if (p.operator) return true;
  switch (e.type) {
    case 'job.deferred':
      return false;
    case 'approval.created':
      return canSeeRole(p, e.role);
    case 'approval.decided':
    case 'approval.expired':
    case 'claim.changed':
    case 'note.added': {
      const role = await requestRole(e.requestId);
      return role !== undefined && canSeeRole(p, role);
    }
    case 'execution.finished': {
      if (e.requestId) {
        const role = await requestRole(e.requestId);
        return role !== undefined && canSeeRole(p, role);
      }
      return e.threadId !== null && threadVisible(e.threadId);
    }
    case 'thread.status':
      return threadVisible(e.threadId);
    default:
      return false;
  }
}

/** Count one more stream of `reviewer`, refusing it past `max`; the function returned gives it back. */
function reserveStream(perReviewer: Map<string, number>, reviewer: string, max: number): () => void {
  const held = perReviewer.get(reviewer) ?? 0;
  if (held >= max) throw new TooManyStreamsError(max);
  perReviewer.set(reviewer, held + 1);
  return () => {
    const n = (perReviewer.get(reviewer) ?? 1) - 1;
    if (n <= 0) perReviewer.delete(reviewer);
    else perReviewer.set(reviewer, n);
  };
}

/** The look-ups {@link visible} needs, for one stream of `p`. */
function visibilityLookups(deps: RouteDeps, p: Principal) {
  // Roles of requests and visibility of threads, looked up once per stream (a role never changes;
  // a thread only becomes visible, so only that answer is kept).
  const roles = new Map<string, string | undefined>();
  const threads = new Set<string>();
  const requestRole = async (id: string) => {
    if (!roles.has(id)) {
      if (roles.size > 5000) roles.clear();
      roles.set(id, (await deps.interlock.getRequest(id))?.role);
    }
    return roles.get(id);
  };
  const threadVisible = async (id: string) => {
    if (threads.has(id)) return true;
    const mine = await deps.interlock.listRequests({ threadId: id, roles: p.roles, limit: 1 });
    if (mine.items.length > 0) threads.add(id);
    return mine.items.length > 0;
  };
  return { requestRole, threadVisible };
}

/**
 * GET /events: Server-Sent Events of what the engine commits in this process
 * (approval.created/decided/expired, claim.changed, note.added, thread.status, execution.finished). The
 * first event is `ready`. Ids count per connection and are not replayed: on
 * reconnect, reload the queue. A stream is ended when events of other processes
 * may have been missed (its process lost and regained the connection carrying
 * them), so its client reconnects and reloads.
 */
export function eventRoutes(deps: RouteDeps, opts: EventStreamOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const perReviewer = new Map<string, number>();
  app.get('/events', (c) => {
    const p = c.var.principal;
    const release = reserveStream(perReviewer, p.id, opts.maxPerReviewer);
    const { requestRole, threadVisible } = visibilityLookups(deps, p);
    c.header('X-Accel-Buffering', 'no'); // stop reverse proxies from buffering the stream
    return streamSSE(c, async (stream) => {
      const queue: EngineEvent[] = [];
      let ended = false;
      let wake: (() => void) | undefined;
      const end = () => {
        ended = true;
        wake?.();
      };
      const off = deps.interlock.on((e) => {
        if (ended) return;
        // Events of other replicas may be lost: end the stream, and the client reconnects and reloads.
        if (e.type === 'events.missed') return end();
        if (queue.length >= opts.maxBuffered) return end();
        queue.push(e);
        wake?.();
      });
      stream.onAbort(end);
      c.req.raw.signal.addEventListener('abort', end, { once: true });
      opts.open.add(end);
      try {
        await stream.writeSSE({
          event: 'ready',
          data: JSON.stringify({ reviewer: p.id, roles: p.roles }),
          retry: 3000,
        });
        let seq = 0;
        while (!ended && !stream.aborted) {
          const e = queue.shift();
          if (e) {
            if (!(await visible(p, e, requestRole, threadVisible))) continue;
            await stream.writeSSE({ event: e.type, id: String(++seq), data: JSON.stringify(e) });
            continue;
          }
          const idle = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), opts.heartbeatMs);
            wake = () => {
              clearTimeout(timer);
              resolve(false);
            };
          });
          wake = undefined;
          if (idle && !ended) await stream.write(': heartbeat\n\n');
        }
      } catch {
        // The client went away in the middle of a write: nothing to tell anyone.
      } finally {
        off();
        opts.open.delete(end);
        release();
      }
    });
  });
  return app;
}
