import pg from 'pg';
import type { StoreEventBus } from '../types.ts';

/** What the bus needs from the store: its pool (to publish), how to connect a listener, and the schema it serves. */
export interface PgEventBusOptions {
  pool: pg.Pool;
  connectionString: string;
  types: pg.CustomTypesConfig;
  schema: string;
}

/**
 * Cross-process live events over PostgreSQL LISTEN/NOTIFY, one channel per schema.
 * Publishing uses the pool; subscribing holds one dedicated connection while
 * anyone listens, re-established with backoff after it is lost. Events are a
 * hint to refresh: the database stays the truth, so a lost notification only
 * delays a screen.
 */
export function createPgEventBus({ pool, connectionString, types, schema }: PgEventBusOptions): {
  events: StoreEventBus;
  close(): Promise<void>;
} {
  const CHANNEL = `interlock_events_${schema}`;
  const subscribers = new Set<(m: unknown) => void>();
  /** The LISTEN connection, while anyone subscribes; re-established after it is lost (a server restart). */
  let listener: pg.Client | undefined;
  let listening: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  const LISTEN_RETRY_MS = [100, 250, 500, 1000, 2000, 5000];
  const listen = (attempt = 0): Promise<void> => {
    const client = new pg.Client({
      connectionString,
      types,
      application_name: `interlock-listen:${schema}`.slice(0, 63),
    });
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL || !n.payload) return;
      let m: unknown;
      try {
        m = JSON.parse(n.payload);
      } catch {
        return;
      }
      for (const s of subscribers) s(m);
    });
    // A lost listener only delays live updates (the database stays the truth): listen again, with backoff.
    const lost = () => {
      if (listener !== client) return;
      listener = undefined;
      client.end().catch(() => undefined);
      if (closed || subscribers.size === 0 || retry) return;
      retry = setTimeout(
        () => {
          retry = undefined;
          if (!closed && subscribers.size > 0 && !listener) listening = listen(attempt + 1).catch(() => undefined);
        },
        LISTEN_RETRY_MS[Math.min(attempt, LISTEN_RETRY_MS.length - 1)],
      );
      retry.unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    listener = client;
    return (async () => {
      await client.connect();
      await client.query(`LISTEN "${CHANNEL}"`);
      attempt = 0;
    })().catch((err: unknown) => {
      lost();
      throw err;
    });
  };
  const events: StoreEventBus = {
    async publish(message) {
      // NOTIFY payloads are limited to 8000 bytes; callers send ids and statuses, packed below that.
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(message)]);
    },
    async subscribe(fn) {
      subscribers.add(fn);
      if (!listener) listening = listen();
      try {
        await listening;
      } catch (err) {
        // Not subscribed: the caller learns why and may try again.
        subscribers.delete(fn);
        throw err;
      }
      return async () => {
        subscribers.delete(fn);
        if (subscribers.size === 0) {
          if (retry) clearTimeout(retry);
          retry = undefined;
          const l = listener;
          listener = undefined;
          await l?.end().catch(() => undefined);
        }
      };
    },
  };

  return {
    events,
    async close() {
      closed = true;
      subscribers.clear();
      if (retry) clearTimeout(retry);
      const l = listener;
      listener = undefined;
      await l?.end().catch(() => undefined);
    },
  };
}
