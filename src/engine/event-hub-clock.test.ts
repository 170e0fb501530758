import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEventHub } from './event-hub.ts';
import type { EngineEvent } from './context.ts';
import type { StoreEventBus } from '../store/types.ts';

describe('event hub: a wall clock that jumps', () => {
  it(
    'sends events to other processes at once after the wall clock steps back 10 minutes',
    { timeout: 20_000 },
    async (t) => {
      let wall = Date.UTC(2026, 0, 5, 10, 0, 0);
      t.mock.method(Date, 'now', () => wall);
      const sent: EngineEvent[][] = [];
      let arrived: (() => void) | undefined;
      const bus: StoreEventBus = {
        publish: (m) => {
          sent.push((m as { events: EngineEvent[] }).events);
          arrived?.();
          return Promise.resolve();
        },
        subscribe: () => Promise.resolve(() => Promise.resolve()),
      };
      const hub = createEventHub(bus, 'here');
      const next = () => new Promise<void>((r) => (arrived = r));
      const event = (threadId: string): EngineEvent => ({ type: 'thread.status', threadId, status: 'interrupted' });

      let published = next();
      hub.emit(event('t1'));
      await published;
      // Right after a send the hub gathers events for a few milliseconds; the step must not stretch that to 10 minutes.
      wall -= 10 * 60_000;
      published = next();
      hub.emit(event('t2'));
      await published;
      assert.deepEqual(
        sent.flat().map((e) => (e as { threadId: string }).threadId),
        ['t1', 't2'],
      );
    },
  );
});
