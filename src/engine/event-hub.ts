import { performance } from 'node:perf_hooks';
import type { StoreEventBus } from '../store/types.ts';
import type { CommitEvents, EngineEvent } from './context.ts';

/** How long events wait to be sent to other processes together. */
const REMOTE_EVENT_DELAY_MS = 10;
/** How soon a failed subscription to other processes' events is tried again. */
const REMOTE_RETRY_MS = 1000;
/** NOTIFY payloads hold at most 8000 bytes; events are packed below that. */
const MAX_EVENTS_BYTES = 7000;

/** Split events into batches whose JSON stays under {@link MAX_EVENTS_BYTES}. */
export function packEvents(events: readonly EngineEvent[]): EngineEvent[][] {
  const out: EngineEvent[][] = [];
  let batch: EngineEvent[] = [];
  let bytes = 0;
  for (const e of events) {
    const n = Buffer.byteLength(JSON.stringify(e)) + 1;
    if (batch.length > 0 && bytes + n > MAX_EVENTS_BYTES) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(e);
    bytes += n;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/** Engine events for this process's listeners and, through the store's bus, every other process's. */
export interface EventHub extends CommitEvents {
  /** Deliver an event emitted after a commit, here at once and to other processes soon after. */
  readonly emit: (e: EngineEvent) => void;
  /** Listen to local and remote events; returns an unsubscribe function. */
  readonly on: (listener: (e: EngineEvent) => void) => () => void;
}

/**
 * The engine's event fan-out. Local listeners hear each event synchronously;
 * with a cross-process bus (PostgreSQL), events also go out to other processes
 * on the same database and events from them arrive marked `remote`. The engine's
 * writes send theirs inside their transaction ({@link CommitEvents.publishIn}:
 * delivered at the commit, whatever happens to this process after it); `emit`
 * batches the rest after the fact. `owner` tells this process's own messages
 * apart when they come back.
 */
export function createEventHub(bus: StoreEventBus | undefined, owner: string): EventHub {
  const listeners = new Set<(e: EngineEvent) => void>();
  const deliver = (e: EngineEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch {
        // A listener's failure must not undo or hide a committed write.
      }
    }
  };

  const outgoing: EngineEvent[] = [];
  // On the monotonic clock: with wall time, a clock stepped back would hold events for the length of the step.
  let quietUntil = Number.NEGATIVE_INFINITY;
  // Batches go out one after another: concurrent NOTIFYs on different pooled connections could arrive out of order.
  let sending: Promise<void> = Promise.resolve();
  const flushRemote = () => {
    quietUntil = performance.now() + REMOTE_EVENT_DELAY_MS;
    for (const events of packEvents(outgoing.splice(0))) {
      sending = sending.then(() => bus?.publish({ origin: owner, events })).catch(() => undefined);
    }
  };

  let unsubscribe: Promise<() => Promise<void>> | undefined;
  const missed = () => deliver({ type: 'events.missed', remote: true });
  const listenRemote = (afterFailure = false) => {
    if (!bus || unsubscribe || listeners.size === 0) return;
    const subscribing = bus.subscribe((m) => {
      const msg = m as { origin?: string; events?: EngineEvent[] };
      if (msg.origin === owner || !Array.isArray(msg.events)) return;
      for (const e of msg.events) deliver({ ...e, remote: true });
    }, missed);
    unsubscribe = subscribing;
    subscribing.then(
      // Listeners that were already there went without other processes' events until now.
      () => {
        if (afterFailure) missed();
      },
      () => {
        if (unsubscribe === subscribing) unsubscribe = undefined;
        // Could not listen (the database is away): try again while anyone listens.
        setTimeout(() => listenRemote(true), REMOTE_RETRY_MS).unref();
      },
    );
  };

  return {
    async publishIn(tx, events) {
      if (!bus || !tx.publishOnCommit) return false;
      for (const batch of packEvents(events)) await tx.publishOnCommit({ origin: owner, events: batch });
      return true;
    },
    local: deliver,
    emit: (e) => {
      deliver(e);
      if (!bus) return;
      // An event goes out at once; while events keep coming, they are gathered for a few
      // milliseconds after each send and go out together (a NOTIFY per event would cost a
      // round trip each). A failed publish only delays other processes' live view.
      outgoing.push(e);
      if (outgoing.length === 1) {
        const wait = Math.min(REMOTE_EVENT_DELAY_MS, quietUntil - performance.now());
        if (wait > 0) setTimeout(flushRemote, wait);
        else setImmediate(flushRemote);
      }
    },
    on: (listener) => {
      listeners.add(listener);
      listenRemote();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && unsubscribe) {
          const u = unsubscribe;
          unsubscribe = undefined;
          void u.then((stop) => stop()).catch(() => undefined);
        }
      };
    },
  };
}
