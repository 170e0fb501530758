/**
 * Installs the benchmark's peers (LangGraph.js and its checkpointers) into
 * bench/node_modules on demand, and checks that each one loads on this Node.
 * The project's own `npm ci` never installs them.
 *
 * better-sqlite3 (SqliteSaver's driver) is pinned to 13.x by an override in
 * bench/package.json: 12.x, which SqliteSaver's range resolves to, is built on
 * node::ObjectWrap and aborts the process under Node >= 24.19 when the garbage
 * collector finalizes a statement (nodejs/node#65446). 13.x is a Node-API
 * addon whose linux-x64 binary ships inside the npm tarball: nothing is
 * downloaded from GitHub and nothing is compiled.
 *
 * Run alone: `node bench/setup.ts` (prints what is available).
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = dirname(fileURLToPath(import.meta.url));

/** Which peers can run here, and why not when they cannot. */
export interface PeerStatus {
  langgraph: { ok: boolean; version?: string; reason?: string };
  sqliteSaver: { ok: boolean; version?: string; reason?: string };
  postgresSaver: { ok: boolean; version?: string; reason?: string };
}

/** Node first on PATH: npm and any install script run on the Node running the benchmark. */
function env(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
}

function probe(code: string): { ok: boolean; out: string } {
  // In a child: a broken native addon may abort the process that loads it.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: BENCH,
    env: env(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { ok: r.status === 0, out: (r.stdout + r.stderr).trim() };
}

function version(pkg: string): string | undefined {
  const r = probe(
    `import { readFileSync } from 'node:fs'; console.log(JSON.parse(readFileSync('node_modules/${pkg}/package.json', 'utf8')).version)`,
  );
  return r.ok ? r.out : undefined;
}

/** `npm --prefix bench ci` when bench/node_modules is missing; then check each peer. */
export function ensurePeers(log: (line: string) => void = console.log): PeerStatus {
  if (!existsSync(join(BENCH, 'node_modules', '@langchain', 'langgraph', 'package.json'))) {
    log('bench: installing peers (npm --prefix bench ci)…');
    const r = spawnSync('npm', ['--prefix', BENCH, 'ci', '--no-audit', '--no-fund'], {
      env: env(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.status !== 0) {
      const reason = `npm --prefix bench ci failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' ')}`;
      return {
        langgraph: { ok: false, reason },
        sqliteSaver: { ok: false, reason },
        postgresSaver: { ok: false, reason },
      };
    }
  }
  const lg = probe(`await import('@langchain/langgraph'); await import('@langchain/core/messages');`);
  const sqlite = probe(`
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    for (let i = 0; i < 20000; i++) db.prepare('SELECT ?').get(i); // statements the GC must finalize
    globalThis.gc?.();
    await import('@langchain/langgraph-checkpoint-sqlite');`);
  const pgSaver = probe(`await import('@langchain/langgraph-checkpoint-postgres');`);
  const why = (r: { out: string }) => r.out.split('\n').filter(Boolean).slice(0, 3).join(' ');
  return {
    langgraph: lg.ok ? { ok: true, version: version('@langchain/langgraph') ?? '?' } : { ok: false, reason: why(lg) },
    sqliteSaver: sqlite.ok
      ? {
          ok: true,
          version: `${version('@langchain/langgraph-checkpoint-sqlite') ?? '?'} (better-sqlite3 ${version('better-sqlite3') ?? '?'})`,
        }
      : { ok: false, reason: `better-sqlite3 does not load on Node ${process.version}: ${why(sqlite)}` },
    postgresSaver: pgSaver.ok
      ? { ok: true, version: version('@langchain/langgraph-checkpoint-postgres') ?? '?' }
      : { ok: false, reason: why(pgSaver) },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(ensurePeers(), null, 2));
}
