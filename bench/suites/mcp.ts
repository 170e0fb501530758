/**
 * Suite 8: the MCP gateway's overhead. An `auto` tool call — the official
 * `@modelcontextprotocol/server-everything`'s `echo` — made by the SDK's client over stdio, straight
 * to the server and through `interlock mcp` (a child process, as an MCP host starts it) on SQLite and
 * on PostgreSQL. The three run in the same rounds, interleaved (direct, SQLite, PostgreSQL, direct…),
 * so a burst of load elsewhere on the machine lands on all of them; at 1 and 16 calls in flight.
 *
 * Beside the timings, the store's work per call (transactions, statements, PostgreSQL round trips) is
 * counted with the gateway in this process (`createMcpGateway` over an in-memory transport), sequential
 * calls only.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createInterlock, type PolicyConfig, type Store } from '../../src/index.ts';
import { createMcpGateway } from '../../src/adapters/mcp/gateway.ts';
import { BENCH_DATABASE_URL, type Scratch } from '../lib/backends.ts';
import { summarize, type Summary } from '../lib/stats.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The everything server's entry point, as installed (a dev dependency of the repository). */
export const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const INTERLOCK_BIN = join(ROOT, 'bin', 'interlock.mjs');
const PASSTHROUGH = join(ROOT, 'bench', 'lib', 'mcp-passthrough.ts');

export type McpBackend = 'direct' | 'passthrough' | 'sqlite' | 'postgres';

/** One participant at one concurrency, over all its rounds. */
export interface McpRun {
  label: string;
  backend: McpBackend;
  /** What persists the gateway's record of each call (`—` for the server alone). */
  durability: string;
  transport: 'stdio';
  concurrency: number;
  calls: number;
  callsPerSec: number;
  latencyMs: Summary;
}

/** The store's work per sequential auto call through the gateway. */
export interface McpWork {
  backend: 'sqlite' | 'postgres';
  calls: number;
  transactions: number;
  statements: number;
  roundTrips: number | null;
}

/** The policy the gateway runs under: `echo` is automatic, everything else blocked. */
const POLICY: PolicyConfig = { tools: { echo: [{ id: 'echo', tier: 'auto', reason: 'echo is read-only' }] } };
const CALL = { name: 'echo', arguments: { message: 'hello from the benchmark' } };

interface Participant {
  label: string;
  backend: McpBackend;
  durability: string;
  client: Client;
  stderr: () => string;
}

/** A client over stdio to `command`, with the child's stderr kept for errors (not printed). */
async function stdioClient(command: string, args: string[], env?: Record<string, string>) {
  const transport = new StdioClientTransport({
    command,
    args,
    ...(env ? { env } : {}),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
  const client = new Client({ name: 'interlock-bench', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** `INTERLOCK_MCP_PROF=<dir>`: the gateways write CPU profiles there (for `bench/mcp-probe.ts`). */
function profile(): string[] {
  const dir = process.env.INTERLOCK_MCP_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** The everything server alone, and `interlock mcp` in front of it on each backend (`compare`: another checkout's too). */
async function participants(scratch: Scratch, durability: { sqlite: string; postgres: string }, compare?: string) {
  const direct = await stdioClient(process.execPath, [EVERYTHING, 'stdio']);
  const passthrough = await stdioClient(process.execPath, [PASSTHROUGH, process.execPath, EVERYTHING, 'stdio']);
  const config = join(scratch.dir, 'mcp-bench.config.mjs');
  writeFileSync(
    config,
    `export default { policy: ${JSON.stringify(POLICY)}, agents: () => [], mcp: ${JSON.stringify({
      upstreams: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    })} };\n`,
  );
  const base = { ...(process.env as Record<string, string>), NODE_OPTIONS: '' };
  const gateway = (env: Record<string, string>, bin = INTERLOCK_BIN) =>
    stdioClient(process.execPath, [...profile(), bin, 'mcp', '--config', config], { ...base, ...env });
  const sqlite = await gateway({ DATABASE_URL: '', INTERLOCK_DATA_DIR: join(scratch.dir, 'mcp-sqlite') });
  const postgres = await gateway({ DATABASE_URL: BENCH_DATABASE_URL, INTERLOCK_PG_SCHEMA: scratch.schema('mcp') });
  const other: Participant[] = [];
  if (compare) {
    const bin = join(compare, 'bin', 'interlock.mjs');
    const o = { durability: durability.sqlite, backend: 'sqlite' as const };
    other.push({
      label: `Gateway (${compare}) · SQLite`,
      ...o,
      ...(await gateway({ DATABASE_URL: '', INTERLOCK_DATA_DIR: join(scratch.dir, 'mcp-sqlite-b') }, bin)),
    });
    other.push({
      label: `Gateway (${compare}) · PostgreSQL`,
      backend: 'postgres',
      durability: durability.postgres,
      ...(await gateway({ DATABASE_URL: BENCH_DATABASE_URL, INTERLOCK_PG_SCHEMA: scratch.schema('mcpb') }, bin)),
    });
  }
  const list: Participant[] = [
    { label: 'Direct · server-everything', backend: 'direct', durability: '—', ...direct },
    { label: 'SDK pass-through proxy (no gate)', backend: 'passthrough', durability: '—', ...passthrough },
    { label: 'Gateway · SQLite', backend: 'sqlite', durability: durability.sqlite, ...sqlite },
    { label: 'Gateway · PostgreSQL', backend: 'postgres', durability: durability.postgres, ...postgres },
    ...other,
  ];
  return list;
}

/** `calls` echo calls (at least), `concurrency` at a time, for at least `seconds`: each call's latency in ms. */
async function measure(p: Participant, concurrency: number, seconds: number, minCalls: number) {
  const samples: number[] = [];
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end || samples.length < minCalls) {
        const t = performance.now();
        const r = await p.client.callTool(CALL);
        if (r.isError)
          throw new Error(`${p.label}: echo failed: ${JSON.stringify(r.content)} ${p.stderr().slice(-500)}`);
        samples.push(performance.now() - t);
      }
    }),
  );
  return { samples, ms: performance.now() - t0 };
}

/** The suite's options: seconds per round and participant, rounds, warm-up calls, and a pause between runs. */
export interface McpOptions {
  seconds: number;
  rounds: number;
  minCalls: number;
  warmup: number;
  settle: () => Promise<void>;
  durability: { sqlite: string; postgres: string };
  /** Another checkout of Interlock whose gateway runs in the same rounds (an A/B of two commits). */
  compare?: string;
}

/** Direct against the gateway on both backends, interleaved, at 1 and 16 calls in flight. */
export async function runMcp(scratch: Scratch, o: McpOptions): Promise<McpRun[]> {
  const list = await participants(scratch, o.durability, o.compare);
  const out: McpRun[] = [];
  try {
    for (const p of list) for (let i = 0; i < o.warmup; i++) await p.client.callTool(CALL);
    for (const concurrency of [1, 16]) {
      const taken = new Map<Participant, { samples: number[]; ms: number }>(
        list.map((p) => [p, { samples: [], ms: 0 }]),
      );
      for (let round = 0; round < o.rounds; round++) {
        for (const p of list) {
          await o.settle();
          const r = await measure(p, concurrency, o.seconds / o.rounds, Math.ceil(o.minCalls / o.rounds));
          const t = taken.get(p)!;
          for (const x of r.samples) t.samples.push(x);
          t.ms += r.ms;
        }
      }
      for (const p of list) {
        const t = taken.get(p)!;
        out.push({
          label: p.label,
          backend: p.backend,
          durability: p.durability,
          transport: 'stdio',
          concurrency,
          calls: t.samples.length,
          callsPerSec: t.samples.length / (t.ms / 1000),
          latencyMs: summarize(t.samples),
        });
      }
    }
  } finally {
    await Promise.all(list.map((p) => p.client.close().catch(() => undefined)));
  }
  return out;
}

/**
 * The store's transactions, statements and round trips per auto call, counted with the gateway in
 * this process over an in-memory transport (the upstream is the everything server over stdio).
 */
export async function mcpWork(store: Store, backend: 'sqlite' | 'postgres', calls: number): Promise<McpWork> {
  const upstream = await stdioClient(process.execPath, [EVERYTHING, 'stdio']);
  const interlock = createInterlock({ store, policy: POLICY });
  const { server } = await createMcpGateway({ interlock, upstreams: { everything: upstream.client } });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'interlock-bench', version: '1' });
  await Promise.all([server.connect(b), client.connect(a)]);
  try {
    for (let i = 0; i < 20; i++) await client.callTool(CALL);
    const before = { roundTrips: 0, ...store.stats };
    for (let i = 0; i < calls; i++) await client.callTool(CALL);
    const after = { roundTrips: 0, ...store.stats };
    return {
      backend,
      calls,
      transactions: (after.transactions - before.transactions) / calls,
      statements: (after.statements - before.statements) / calls,
      roundTrips: backend === 'postgres' ? (after.roundTrips - before.roundTrips) / calls : null,
    };
  } finally {
    await client.close();
    await upstream.client.close();
  }
}
