import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { EngineEvent } from '../../engine/index.ts';
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
}

/** New requests are shown to their role; workers' deferrals to operators; other events carry only ids and statuses, and go to everyone. */
function visible(p: Principal, e: EngineEvent): boolean {
  if (e.type === 'job.deferred') return p.operator;
  return e.type === 'approval.created' ? canSeeRole(p, e.role) : true;
}

/**
 * GET /events: Server-Sent Events of what the engine commits in this process
 * (approval.created/decided/expired, thread.status, execution.finished). The
 * first event is `ready`. Ids count per connection and are not replayed: on
 * reconnect, reload the queue.
 */
export function eventRoutes(deps: RouteDeps, opts: EventStreamOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/events', (c) => {
    const p = c.var.principal;
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
        if (ended || !visible(p, e)) return;
        if (queue.length >= opts.maxBuffered) return end();
        queue.push(e);
        wake?.();
      });
      stream.onAbort(end);
      c.req.raw.signal.addEventListener('abort', end, { once: true });
      opts.open.add(end);
      try {
        await stream.writeSSE({ event: 'ready', data: JSON.stringify({ reviewer: p.id, roles: p.roles }), retry: 3000 });
        let seq = 0;
        while (!ended && !stream.aborted) {
          const e = queue.shift();
          if (e) {
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
      }
    });
  });
  return app;
}
