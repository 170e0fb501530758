import { after, before } from 'node:test';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendInitializer } from '../../src/testing/backends.ts';
import type { Interlock } from '../../src/engine/index.ts';
import { startServerFixture, type ServerFixture } from './server-fixture.ts';

/**
 * A framework agent's child script (`node <child> invoke|resume <threadId> <ledger>`) run in processes
 * of its own over one database, with the reviewers' HTTP API beside them. Call inside a `describe`: it
 * registers the suite's set-up and clean-up. `api` and `il` are ready once the suite's `before` ran.
 */
export function childProcesses(child: string, backend: BackendInitializer) {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-proc-'));
  const h = {
    dir,
    api: undefined as unknown as ServerFixture,
    il: undefined as unknown as Interlock,
    /**
     * One process: exit status (3: busy), signal, and what it printed. Run without blocking this
     * process's event loop: its engine shares the database, and a transaction of its own left open
     * while this process stood still would hold the child on SQLite's write lock.
     */
    run: (verb: 'invoke' | 'resume', threadId: string, ledger: string, extra: Record<string, string> = {}) =>
      new Promise<{ status: number | null; signal: NodeJS.Signals | null; out: string; err: string }>(
        (resolve, reject) => {
          const p = spawn(process.execPath, [child, verb, threadId, ledger], {
            env: { ...process.env, ...backend.env(), ...extra },
            timeout: 60_000,
          });
          let out = '';
          let err = '';
          p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
          p.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
          p.on('error', reject);
          p.on('close', (status, signal) => resolve({ status, signal, out, err }));
        },
      ),
    /** The payments the children made, one JSON line each. */
    paid: (ledger: string) => (existsSync(ledger) ? readFileSync(ledger, 'utf8').trim().split('\n') : []),
    /** Resume until the dead process's leases ran out (exit 3: busy). */
    resumeAfterRestart: async (threadId: string, ledger: string) => {
      let again = await h.run('resume', threadId, ledger);
      for (let i = 0; i < 40 && again.status === 3; i++) again = await h.run('resume', threadId, ledger);
      return again;
    },
  };
  before(async () => {
    h.api = await startServerFixture(backend);
    h.il = h.api.interlock;
  });
  after(async () => {
    await h.api.close();
    await backend.destroy();
  });
  return h;
}
