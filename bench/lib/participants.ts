/**
 * What a suite runs: Interlock, LangGraph.js or the floor, each behind the
 * same small interface (pause a turn, resume it), so every participant runs
 * the same driver loop.
 */
import pg from 'pg';
import type { Store } from '../../src/index.ts';
import { BENCH_DATABASE_URL, type Durability, type Scratch } from './backends.ts';
import { postgresFloor, sqliteFloor, type Floor } from './floor.ts';
import { interlockPause, interlockResume, interlockRig } from './workload.ts';
import type { LangGraphPeer } from '../peers/langgraph.ts';

export type System = 'interlock' | 'langgraph' | 'floor';
export type Backend = 'sqlite' | 'postgres' | 'memory';

export interface Participant {
  system: System;
  backend: Backend;
  /** e.g. `synchronous=FULL (WAL)`, `fsync=on, synchronous_commit=on`, `none (in memory)`. */
  durability: string;
  label: string;
  /** Run one turn up to its pause; returns what `resume` needs. */
  pause(threadId: string, turn: number): Promise<unknown>;
  /** Approve and run the turn to its end. */
  resume(threadId: string, token: unknown): Promise<void>;
  /** Transactions and statements so far (Interlock's `store.stats`; the floor's by construction). */
  counters?(): { transactions: number; statements: number; roundTrips?: number };
  /** Bytes the thread's persisted state takes (payload columns). */
  storageBytes?(threadId: string): Promise<number>;
  /** Bytes including everything else tied to the thread (Interlock: requests, audit, ledger, jobs). */
  allBytes?(threadId: string): Promise<number>;
  /** Size of the thread's final state as JSON. */
  finalStateBytes?(threadId: string): Promise<number>;
  /** Side effects per idempotency key (double executions are keys counted twice). */
  effects?: Map<string, number>;
  close(): Promise<void>;
}

export const SQLITE_DURABILITY = (d: Durability) => `synchronous=${d === 'full' ? 'FULL' : 'NORMAL'} (WAL)`;
export const PG_DURABILITY = 'fsync=on, synchronous_commit=on (server default)';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/** Interlock over a store the caller made (and this participant closes). */
export function interlockParticipant(store: Store, backend: Backend, durability: string): Participant {
  const rig = interlockRig(store, 'gated');
  const other =
    backend === 'sqlite'
      ? `SELECT
          (SELECT COALESCE(SUM(LENGTH(CAST(args || evidence || context || reason || COALESCE(resolution, '') AS BLOB))), 0) FROM il_requests WHERE thread_id = $1)
        + (SELECT COALESCE(SUM(LENGTH(CAST(payload || hash || prev_hash AS BLOB))), 0) FROM il_audit WHERE thread_id = $1)
        + (SELECT COALESCE(SUM(LENGTH(CAST(args || COALESCE(result, '') AS BLOB))), 0) FROM il_executions WHERE thread_id = $1)
        + (SELECT COALESCE(SUM(LENGTH(CAST(payload AS BLOB))), 0) FROM il_jobs WHERE thread_id = $1) AS n`
      : `SELECT
          (SELECT COALESCE(SUM(octet_length(args || evidence || context || reason || COALESCE(resolution, ''))), 0) FROM il_requests WHERE thread_id = $1)
        + (SELECT COALESCE(SUM(octet_length(payload || hash || prev_hash)), 0) FROM il_audit WHERE thread_id = $1)
        + (SELECT COALESCE(SUM(octet_length(args || COALESCE(result, ''))), 0) FROM il_executions WHERE thread_id = $1)
        + (SELECT COALESCE(SUM(octet_length(payload)), 0) FROM il_jobs WHERE thread_id = $1) AS n`;
  return {
    system: 'interlock',
    backend,
    durability,
    label: `Interlock · ${backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
    pause: (threadId, turn) => interlockPause(rig, threadId, turn),
    resume: (threadId, token) => interlockResume(rig, threadId, token as string),
    counters: () => ({ ...store.stats }),
    storageBytes: (threadId) => store.threadStorageBytes(threadId),
    async allBytes(threadId) {
      const rows = await store.unsafeQuery(other, [threadId]);
      return (await store.threadStorageBytes(threadId)) + Number(rows[0]?.n ?? 0);
    },
    async finalStateBytes(threadId) {
      const cp = await store.getLatestCheckpoint(threadId);
      return bytes({ messages: await store.listMessages(threadId), state: cp?.state ?? {} });
    },
    effects: rig.effects,
    close: () => store.close(),
  };
}

/** The floor behind the common interface; its counters are one transaction and one statement per call. */
function floorParticipant(f: Floor, backend: Backend, durability: string, label: string): Participant {
  let ops = 0;
  return {
    system: 'floor',
    backend,
    durability,
    label,
    async pause() {
      ops++;
      return f.pause();
    },
    async resume(_t, id) {
      ops++;
      await f.resume(id as number);
    },
    counters: () => ({ transactions: ops, statements: ops }),
    close: () => f.close(),
  };
}

export function sqliteFloorParticipant(scratch: Scratch, durability: Durability): Participant {
  return floorParticipant(
    sqliteFloor(scratch.file('floor'), durability),
    'sqlite',
    SQLITE_DURABILITY(durability),
    'Floor · SQLite (node:sqlite)',
  );
}

export async function postgresFloorParticipant(scratch: Scratch, max: number): Promise<Participant> {
  return floorParticipant(
    await postgresFloor(scratch.schema('floor'), max),
    'postgres',
    PG_DURABILITY,
    'Floor · PostgreSQL (pg)',
  );
}

/** LangGraph.js over MemorySaver, SqliteSaver or PostgresSaver. */
export async function langGraphParticipant(
  lg: LangGraphPeer,
  scratch: Scratch,
  backend: Backend,
  opts: { durability?: Durability; delta?: boolean; max?: number } = {},
): Promise<Participant> {
  const suffix = opts.delta ? ' (MessagesDeltaValue)' : '';
  if (backend === 'memory') {
    const rig = lg.graph('gated', lg.memorySaver(), { delta: opts.delta ?? false });
    return {
      system: 'langgraph',
      backend,
      durability: 'none (in memory)',
      label: `LangGraph.js · MemorySaver${suffix}`,
      pause: (t, n) => rig.turn(t, n),
      resume: async (t) => void (await rig.resume(t)),
      async finalStateBytes(t) {
        return bytes((await rig.graph.getState({ configurable: { thread_id: t } })).values);
      },
      effects: rig.effects,
      close: async () => undefined,
    };
  }
  if (backend === 'sqlite') {
    const durability = opts.durability ?? 'full';
    const { saver, db, synchronous } = await lg.sqliteSaver(
      scratch.file('langgraph'),
      durability === 'full' ? 'FULL' : 'NORMAL',
    );
    const rig = lg.graph('gated', saver, { delta: opts.delta ?? false });
    const q = db.prepare(`SELECT
        (SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) FROM checkpoints WHERE thread_id = ?)
      + (SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes WHERE thread_id = ?) AS n`);
    return {
      system: 'langgraph',
      backend,
      durability: `synchronous=${synchronous} (WAL)`,
      label: `LangGraph.js · SqliteSaver${suffix}`,
      pause: (t, n) => rig.turn(t, n),
      resume: async (t) => void (await rig.resume(t)),
      storageBytes: async (t) => Number((q.get(t, t) as { n: number }).n),
      async finalStateBytes(t) {
        return bytes((await rig.graph.getState({ configurable: { thread_id: t } })).values);
      },
      effects: rig.effects,
      close: async () => db.close(),
    };
  }
  const schema = scratch.schema('langgraph');
  const saver = await lg.postgresSaver(BENCH_DATABASE_URL, schema, opts.max ?? 16);
  const rig = lg.graph('gated', saver, { delta: opts.delta ?? false });
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  client.on('error', () => undefined);
  await client.connect();
  return {
    system: 'langgraph',
    backend,
    durability: PG_DURABILITY,
    label: `LangGraph.js · PostgresSaver${suffix}`,
    pause: (t, n) => rig.turn(t, n),
    resume: async (t) => void (await rig.resume(t)),
    async storageBytes(t) {
      const r = await client.query<{ n: string }>(
        `SELECT
            (SELECT COALESCE(SUM(octet_length(checkpoint::text) + octet_length(metadata::text)), 0) FROM ${schema}.checkpoints WHERE thread_id = $1)
          + (SELECT COALESCE(SUM(octet_length(blob)), 0) FROM ${schema}.checkpoint_blobs WHERE thread_id = $1)
          + (SELECT COALESCE(SUM(octet_length(blob)), 0) FROM ${schema}.checkpoint_writes WHERE thread_id = $1) AS n`,
        [t],
      );
      return Number(r.rows[0]?.n ?? 0);
    },
    async finalStateBytes(t) {
      return bytes((await rig.graph.getState({ configurable: { thread_id: t } })).values);
    },
    effects: rig.effects,
    async close() {
      await client.end();
      await saver.end();
    },
  };
}
