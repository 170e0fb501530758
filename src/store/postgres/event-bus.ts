import pg from 'pg';
import type { StoreEventBus } from '../types.ts';
import { pgClientSettings, type ResolvedPgTimeouts } from './timeouts.ts';

/** What the bus needs from the store: its pool (to publish), how to connect a listener, the schema it serves, its deadlines. */
export interface PgEventBusOptions {
  pool: pg.Pool;
  connectionString: string;
  types: pg.CustomTypesConfig;
  schema: string;
  timeouts: ResolvedPgTimeouts;
}

/** The NOTIFY channel of a schema's events: one per schema, so stores on one database stay apart. */
export function eventChannel(schema: string): string {
  return `interlock_events_${schema}`;
}

const LISTEN_RETRY_MS = [100, 250, 500, 1000, 2000, 5000];

/** The bus's state, shared by its subscribers and the life of its LISTEN connection. */
interface ListenState {
  readonly channel: string;
  readonly subscribers: Set<(m: unknown) => void>;
  /** Told when listening resumes after a loss (messages sent meanwhile are gone). */
  readonly gapListeners: Set<() => void>;
  /** A LISTEN succeeded since anyone began subscribing: the next one after a loss leaves a gap. */
  listened: boolean;
  /** The LISTEN connection, while anyone subscribes; re-established after it is lost (a server restart). */
  listener: pg.Client | undefined;
  listening: Promise<void> | undefined;
  retry: NodeJS.Timeout | undefined;
  /** Checks every `keepAliveMs` that the LISTEN connection still answers. */
  heartbeat: NodeJS.Timeout | undefined;
  closed: boolean;
}

/** A notification on the bus's channel, parsed, to every subscriber; anything else is ignored. */
function deliver(state: ListenState, n: pg.Notification): void {
  if (n.channel !== state.channel || !n.payload) return;
  let m: unknown;
  try {
    m = JSON.parse(n.payload);
  } catch {
    return;
  }
  for (const s of state.subscribers) s(m);
}

/** Open the LISTEN connection; should it fail or be lost later, try again with backoff while anyone subscribes. */
function listen(state: ListenState, conn: Omit<PgEventBusOptions, 'pool'>, attempt = 0): Promise<void> {
  const client = new pg.Client({
    connectionString: conn.connectionString,
    types: conn.types,
    application_name: `interlock-listen:${conn.schema}`.slice(0, 63),
    ...pgClientSettings(conn.timeouts),
  });
  client.on('notification', (n) => deliver(state, n));
  // A lost listener only delays live updates (the database stays the truth): listen again, with backoff.
  const lost = () => {
    if (state.listener !== client) return;
    state.listener = undefined;
    stopHeartbeat(state);
    client.end().catch(() => undefined);
    if (state.closed || state.subscribers.size === 0 || state.retry) return;
    state.retry = setTimeout(
      () => {
        state.retry = undefined;
        if (!state.closed && state.subscribers.size > 0 && !state.listener)
          state.listening = listen(state, conn, attempt + 1).catch(() => undefined);
      },
      LISTEN_RETRY_MS[Math.min(attempt, LISTEN_RETRY_MS.length - 1)],
    );
    state.retry.unref();
  };
  client.on('error', lost);
  client.on('end', lost);
  state.listener = client;
  return (async () => {
    await client.connect();
    await client.query(`LISTEN "${state.channel}"`);
    attempt = 0;
    if (state.listened) for (const g of state.gapListeners) g();
    state.listened = true;
    startHeartbeat(state, client, conn.timeouts.keepAliveMs, lost);
  })().catch((err: unknown) => {
    lost();
    throw err;
  });
}

/**
 * An idle LISTEN connection learns of a silent network only from TCP keepalive, after minutes: a
 * statement every `everyMs`, bounded by the statement deadline, finds out sooner, and a failed one
 * re-establishes the listener (live events resume by themselves after a partition).
 */
function startHeartbeat(state: ListenState, client: pg.Client, everyMs: number, lost: () => void): void {
  stopHeartbeat(state);
  if (everyMs <= 0) return;
  state.heartbeat = setInterval(() => {
    if (state.listener !== client) return;
    client.query('SELECT 1').catch(lost);
  }, everyMs);
  state.heartbeat.unref();
}

function stopHeartbeat(state: ListenState): void {
  if (state.heartbeat) clearInterval(state.heartbeat);
  state.heartbeat = undefined;
}

/** Close the LISTEN connection and cancel a pending retry: nobody listens any more. */
async function stopListening(state: ListenState): Promise<void> {
  state.listened = false;
  stopHeartbeat(state);
  if (state.retry) clearTimeout(state.retry);
  state.retry = undefined;
  const l = state.listener;
  state.listener = undefined;
  await l?.end().catch(() => undefined);
}

/**
 * Cross-process live events over PostgreSQL LISTEN/NOTIFY, one channel per schema.
 * Publishing uses the pool; subscribing holds one dedicated connection while
 * anyone listens, re-established with backoff after it is lost. Events are a
 * hint to refresh: the database stays the truth, so a lost notification only
 * delays a screen.
 */
export function createPgEventBus({ pool, ...connect }: PgEventBusOptions): {
  events: StoreEventBus;
  close(): Promise<void>;
} {
  const state: ListenState = {
    channel: eventChannel(connect.schema),
    subscribers: new Set(),
    gapListeners: new Set(),
    listened: false,
    listener: undefined,
    listening: undefined,
    retry: undefined,
    heartbeat: undefined,
    closed: false,
  };
  const events: StoreEventBus = {
    async publish(message) {
      // NOTIFY payloads are limited to 8000 bytes; callers send ids and statuses, packed below that.
      await pool.query('SELECT pg_notify($1, $2)', [state.channel, JSON.stringify(message)]);
    },
    async subscribe(fn, onGap) {
      state.subscribers.add(fn);
      if (onGap) state.gapListeners.add(onGap);
      if (!state.listener) state.listening = listen(state, connect);
      try {
        await state.listening;
      } catch (err) {
        // Not subscribed: the caller learns why and may try again.
        state.subscribers.delete(fn);
        if (onGap) state.gapListeners.delete(onGap);
        throw err;
      }
      return async () => {
        state.subscribers.delete(fn);
        if (onGap) state.gapListeners.delete(onGap);
        if (state.subscribers.size === 0) await stopListening(state);
      };
    },
  };

  return {
    events,
    async close() {
      state.closed = true;
      state.subscribers.clear();
      state.gapListeners.clear();
      await stopListening(state);
    },
  };
}
