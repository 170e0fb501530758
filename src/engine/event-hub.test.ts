import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEventHub } from './event-hub.ts';
import type { EngineEvent } from './context.ts';
import type { StoreEventBus } from '../store/types.ts';

describe('event hub: listening to other processes', () => {
  it('keeps trying to listen while anyone listens, and tells them events may have been missed once it does', async () => {
    let attempts = 0;
    let deliverRemote: ((m: unknown) => void) | undefined;
    const bus: StoreEventBus = {
      publish: () => Promise.resolve(),
      subscribe: (fn) => {
        attempts++;
        // The database is away for the first two attempts.
        if (attempts <= 2) return Promise.reject(new Error('connection refused'));
        deliverRemote = fn;
        return Promise.resolve(() => Promise.resolve());
      },
    };
    const hub = createEventHub(bus, 'here');
    const seen: EngineEvent[] = [];
    const off = hub.on((e) => seen.push(e));
    const deadline = Date.now() + 10_000;
    while (!deliverRemote && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(attempts, 3, 'tried again after each failure');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen, [{ type: 'events.missed', remote: true }]);
    deliverRemote!({ origin: 'there', events: [{ type: 'thread.status', threadId: 't1', status: 'running' }] });
    assert.deepEqual(seen.at(-1), { type: 'thread.status', threadId: 't1', status: 'running', remote: true });
    off();
  });

  it('stops trying once nobody listens', async () => {
    let attempts = 0;
    const bus: StoreEventBus = {
      publish: () => Promise.resolve(),
      subscribe: () => {
        attempts++;
        return Promise.reject(new Error('connection refused'));
      },
    };
    const hub = createEventHub(bus, 'here');
    const off = hub.on(() => undefined);
    await new Promise((r) => setImmediate(r));
    off();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(attempts, 1);
  });
});
