import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The CLI entry point, run with this Node (`node src/cli/main.ts …`). */
export const CLI_PATH = fileURLToPath(new URL('../cli/main.ts', import.meta.url));

/** A free loopback port (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Options of {@link serviceProcess}. */
export interface ServiceProcessOptions {
  /** Configuration file passed as `--config`. */
  config: string;
  /** Environment added to this process's (database: `backend.env()`). */
  env: Record<string, string>;
  /** `serve` (default: API + worker) or `worker`. */
  command?: 'serve' | 'worker';
  /** Port of `serve`; default a free one, kept across restarts so clients can keep their URL. */
  port?: number;
  /** How long a start may take before it is a failure (default 30 s). */
  startTimeoutMs?: number;
  /** Options for Node itself, before the script (e.g. `--expose-gc`). */
  nodeArgs?: string[];
}

/** An `interlock serve` (or `worker`) child process that a test can kill and start again. */
export interface ServiceProcess {
  /** `http://127.0.0.1:<port>` (serve only). */
  readonly url: string;
  readonly port: number;
  /** Pid of the running child, if any. */
  readonly pid: number | undefined;
  /** Everything every start of the child wrote to stdout and stderr, in order. */
  readonly output: string;
  /** Starts so far. */
  readonly starts: number;
  /** Spawn the child and resolve once it serves (`/readyz` answers 200) or, for a worker, once it says it runs. */
  start(): Promise<void>;
  /** SIGKILL the child and wait for it to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful stop) and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Resident set size of the child in bytes, from /proc (Linux), or undefined. */
  rssBytes(): number | undefined;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

/**
 * Run the real service as a child process (`node src/cli/main.ts serve --config …`),
 * capture its output, and kill or restart it at will: the crash, load and
 * security tests drive it over HTTP like a deployment.
 * @example
 * const svc = await serviceProcess({ config, env: backend.env() });
 * await svc.start();
 * await svc.kill();   // SIGKILL, mid-whatever
 * await svc.start();  // same port, same database
 */
export async function serviceProcess(o: ServiceProcessOptions): Promise<ServiceProcess> {
  const command = o.command ?? 'serve';
  const port = o.port ?? (await freePort());
  let child: ChildProcess | undefined;
  let output = '';
  let starts = 0;
  const url = `http://127.0.0.1:${port}`;
  const livePid = () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined);
  return {
    url,
    port,
    get pid() {
      return livePid();
    },
    get output() {
      return output;
    },
    get starts() {
      return starts;
    },
    async start() {
      if (child && child.exitCode === null && child.signalCode === null)
        throw new Error('the service is already running; kill or stop it first');
      const args = [
        ...(o.nodeArgs ?? []),
        CLI_PATH,
        command,
        '--config',
        o.config,
        ...(command === 'serve' ? ['--port', String(port)] : []),
      ];
      const c = spawn(process.execPath, args, { env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      starts++;
      c.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      c.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      const timeoutMs = o.startTimeoutMs ?? 30_000;
      try {
        await ready(c, { command, url, timeoutMs, output: () => output }, Date.now() + timeoutMs);
      } catch (err) {
        c.kill('SIGKILL');
        await exited(c);
        throw err;
      }
    },
    async kill() {
      if (!child) return;
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      if (!child) return null;
      child.kill('SIGTERM');
      return exited(child);
    },
    rssBytes() {
      const pid = livePid();
      return pid === undefined ? undefined : rssOf(pid);
    },
  };
}

/**
 * Wait until a started child is ready: `serve` once /readyz answers 200 and it printed its URL, a
 * worker once it says it runs. Throws when it exits first or the deadline passes.
 */
async function ready(
  c: ChildProcess,
  s: { command: 'serve' | 'worker'; url: string; timeoutMs: number; output: () => string },
  deadline: number,
): Promise<void> {
  for (;;) {
    if (c.exitCode !== null || c.signalCode !== null)
      throw new Error(
        `the service exited (${c.exitCode ?? c.signalCode}) before it was ready:\n${s.output().slice(-4000)}`,
      );
    if (Date.now() > deadline)
      throw new Error(`the service was not ready within ${s.timeoutMs} ms:\n${s.output().slice(-4000)}`);
    if (s.command === 'worker') {
      if (s.output().includes(' running on ')) return;
    } else {
      try {
        const r = await fetch(`${s.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        await r.arrayBuffer();
        if (r.status === 200 && s.output().includes('Interlock is running at')) return;
      } catch {
        // not listening yet
      }
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resident set size of a process in bytes, from /proc (Linux), or undefined. */
function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
