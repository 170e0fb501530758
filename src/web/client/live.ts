import type { LiveEvent } from './types.ts';

const TYPES = [
  'approval.created',
  'approval.decided',
  'approval.expired',
  'claim.changed',
  'note.added',
  'execution.finished',
  'thread.status',
];

type Listener = (e: LiveEvent) => void;

/** The page's live connection to GET /api/v1/events. */
export interface Live {
  /** Called for every event the server sends. */
  on(listener: Listener): void;
  /** Called after a reconnect: events are not replayed, so reload what the page shows. */
  onResync(fn: () => void): void;
}

let shared: Live | undefined;

/**
 * One EventSource per page, with its state in the top bar (#live). The browser
 * reconnects by itself after a network error; if the server refuses the
 * stream (session ended), it retries slowly and the next API call signs in again.
 */
export function live(): Live {
  if (shared) return shared;
  const listeners = new Set<Listener>();
  const resyncs = new Set<() => void>();
  const badge = document.getElementById('live');
  const state = (s: 'live' | 'connecting' | 'offline', text: string) => {
    if (!badge) return;
    badge.dataset.state = s;
    badge.textContent = text;
    badge.title = s === 'live' ? 'Updates arrive as they happen' : 'Not receiving live updates';
  };
  let opened = 0;
  const connect = () => {
    const es = new EventSource('/api/v1/events');
    es.addEventListener('ready', () => {
      state('live', 'live');
      if (opened++ > 0) for (const fn of resyncs) fn();
    });
    for (const t of TYPES) {
      es.addEventListener(t, (m: MessageEvent<string>) => {
        let data: LiveEvent;
        try {
          data = { ...(JSON.parse(m.data) as LiveEvent), type: t };
        } catch {
          return;
        }
        for (const l of listeners) l(data);
      });
    }
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) {
        state('offline', 'offline');
        window.setTimeout(connect, 5000);
      } else {
        state('connecting', 'reconnecting…');
      }
    };
  };
  connect();
  shared = {
    on: (l) => void listeners.add(l),
    onResync: (fn) => void resyncs.add(fn),
  };
  return shared;
}
