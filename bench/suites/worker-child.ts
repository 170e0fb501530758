/**
 * Child process of suite 6: one resume worker over the PostgreSQL schema in
 * argv[2]. Sends { ready }, starts on { go }, and on { stop } stops and sends
 * the idempotency keys whose side effects it performed.
 */
import { createWorker } from '../../src/index.ts';
import { createPostgresStore } from '../../src/postgres.ts';
import { interlockRig } from '../lib/workload.ts';
import { BENCH_DATABASE_URL } from '../lib/backends.ts';

export type WorkerChildMessage =
  | { type: 'ready' }
  | { type: 'stopped'; effects: Array<[string, number]>; resumed: number; retried: number; dead: number };

const store = createPostgresStore({ connectionString: BENCH_DATABASE_URL, schema: process.argv[2]!, max: 4 });
const rig = interlockRig(store, 'gated');
const worker = createWorker({
  interlock: rig.interlock,
  agents: [rig.agent],
  sweepMs: 0,
  pollMs: 50,
  onError: (err) => console.error('worker:', err),
});
// Warm the pool and the statement caches before the clock starts.
await store.unsafeQuery('SELECT 1');
process.send!({ type: 'ready' } satisfies WorkerChildMessage);
process.on('message', (m: { type: string }) => {
  if (m.type === 'go') worker.start();
  if (m.type === 'stop') {
    void (async () => {
      await worker.stop();
      await store.close();
      // Exit once the message is handed to the channel, not before.
      process.send!(
        { type: 'stopped', effects: [...rig.effects.entries()], ...worker.stats } satisfies WorkerChildMessage,
        () => process.exit(0),
      );
    })();
  }
});
