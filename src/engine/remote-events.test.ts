import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { packEvents } from './event-hub.ts';
import type { EngineEvent } from './context.ts';

describe('packEvents: events for other processes fit NOTIFY payloads', () => {
  const event = (i: number): EngineEvent => ({
    type: 'thread.status',
    threadId: `thr_${String(i).padStart(40, '0')}`,
    status: 'interrupted',
  });

  it('keeps every event, in order, in batches under 8000 bytes', () => {
    const events = Array.from({ length: 500 }, (_, i) => event(i));
    const batches = packEvents(events);
    assert.ok(batches.length > 1);
    assert.deepEqual(batches.flat(), events);
    for (const b of batches)
      assert.ok(Buffer.byteLength(JSON.stringify({ origin: 'host:1:abcdef', events: b })) < 8000);
  });

  it('one event is one batch; none is none', () => {
    assert.deepEqual(packEvents([event(1)]), [[event(1)]]);
    assert.deepEqual(packEvents([]), []);
  });
});
