/**
 * Child process of suite 4: the HTTP API (createApp + serve) and a resume
 * worker over one store, with `count` threads paused on a gated refund.
 * Talks to the parent over IPC: sends { ready }, answers { drain } with what
 * the tool actually executed.
 *
 * argv: sqlite <file> <durability> | postgres <schema>, then <count>.
 */
import { createSqliteStore, createWorker, type Store } from '../../src/index.ts';
import { createPostgresStore } from '../../src/postgres.ts';
import { createApp, createReviewer, serve } from '../../src/server.ts';
import { interlockPause, interlockRig } from '../lib/workload.ts';
import { BENCH_DATABASE_URL } from '../lib/backends.ts';

export interface SeededRequest {
  id: string;
  version: number;
  actionHash: string;
}

export type ChildMessage =
  | { type: 'ready'; url: string; tokens: string[]; requests: SeededRequest[] }
  | {
      type: 'drained';
      executed: number;
      doubles: number;
      keys: number;
      resumeDone: number;
      resumeDead: number;
      drainMs: number;
    };

const [backend, a, b, c] = process.argv.slice(2);
const count = Number(backend === 'sqlite' ? c : b);
let store: Store;
if (backend === 'sqlite') store = createSqliteStore({ path: a!, durability: b === 'normal' ? 'normal' : 'full' });
else store = createPostgresStore({ connectionString: BENCH_DATABASE_URL, schema: a!, max: 16 });
await store.migrate();

const rig = interlockRig(store, 'gated');
const requests: SeededRequest[] = [];
for (let i = 0; i < count; i++) {
  const id = await interlockPause(rig, `http-${i}`, 1);
  const r = (await store.getRequest(id))!;
  requests.push({ id, version: r.version, actionHash: r.actionHash });
}
const tokens: string[] = [];
for (const name of ['alice', 'bob']) tokens.push((await createReviewer(store, { name, roles: ['supervisor'] })).token);

const app = createApp({ interlock: rig.interlock, rateLimit: false, logger: { error: () => undefined } });
const server = await serve({ app, port: 0 });
// Resumes run beside the decisions, as in a one-process deployment: the worker wakes on each decision.
const worker = createWorker({
  interlock: rig.interlock,
  agents: [rig.agent],
  sweepMs: 0,
  pollMs: 20,
  onError: () => undefined,
});
worker.start();
process.send!({ type: 'ready', url: server.url, tokens, requests } satisfies ChildMessage);

process.on('message', (m: { type: string }) => {
  if (m.type !== 'drain') return;
  void (async () => {
    const t0 = performance.now();
    // Wait for every resume job (one per authorized request) to finish.
    for (;;) {
      const rows = await store.unsafeQuery(
        `SELECT COUNT(*) AS n FROM il_jobs WHERE kind = 'resume' AND status IN ('ready', 'running')`,
      );
      if (Number(rows[0]?.n ?? 0) === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const drainMs = performance.now() - t0;
    await worker.stop();
    await server.close();
    const jobs = await store.unsafeQuery(
      `SELECT status, COUNT(*) AS n FROM il_jobs WHERE kind = 'resume' GROUP BY status`,
    );
    const byStatus = Object.fromEntries(jobs.map((r) => [String(r.status), Number(r.n)]));
    const counts = [...rig.effects.values()];
    await store.close();
    const drained: ChildMessage = {
      type: 'drained',
      executed: counts.reduce((s, n) => s + n, 0),
      doubles: counts.filter((n) => n > 1).length,
      keys: counts.length,
      resumeDone: byStatus.done ?? 0,
      resumeDead: byStatus.dead ?? 0,
      drainMs,
    };
    // Exit once the message is handed to the channel, not before.
    process.send!(drained, () => process.exit(0));
  })();
});
