/**
 * Suite 4: decisions over HTTP. A child process serves the API over a store
 * holding `requests` paused threads, with a resume worker beside it. The
 * parent posts decisions with `concurrency` clients; every request gets two
 * simultaneous approvals from two supervisors (a double click, two tabs), so
 * exactly one must win. Afterwards the worker drains the resumes, and we count
 * side effects per idempotency key: a key executed twice is a double execution.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { since, summarize, type Summary } from '../lib/stats.ts';
import type { ChildMessage } from './http-server.ts';

export interface HttpRun {
  label: string;
  backend: 'sqlite' | 'postgres';
  durability: string;
  concurrency: number;
  requests: number;
  posts: number;
  decisionsPerSec: number;
  postsPerSec: number;
  latencyMs: Summary;
  winners: number;
  /** Requests with two winning decisions. */
  doubleDecisions: number;
  /** Idempotency keys whose side effect ran more than once. */
  doubleExecutions: number;
  executed: number;
  /** Losing posts answered with something other than a 409 conflict. */
  unexpected: number;
  drainSec: number;
}

const SERVER = fileURLToPath(new URL('./http-server.ts', import.meta.url));

export async function runHttp(opts: {
  label: string;
  backend: 'sqlite' | 'postgres';
  durability: string;
  args: string[];
  requests: number;
  concurrency: number;
}): Promise<HttpRun> {
  const child = fork(SERVER, [...opts.args, String(opts.requests)], {
    execPath: process.execPath,
    execArgv: [],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  // Keep the end of the child's stderr: if it dies, that is the reason the table gives.
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const messages: ChildMessage[] = [];
  const waiters: Array<() => void> = [];
  child.on('message', (m: ChildMessage) => {
    messages.push(m);
    waiters.splice(0).forEach((w) => w());
  });
  // 'close' comes after the IPC channel is drained ('exit' may come before the last message).
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const next = async <T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> => {
    for (;;) {
      const m = messages.find((x) => x.type === type);
      if (m) return m as Extract<ChildMessage, { type: T }>;
      const code = await Promise.race([new Promise<'msg'>((r) => waiters.push(() => r('msg'))), exited]);
      if (code !== 'msg' && !messages.some((x) => x.type === type)) {
        const cause = stderr
          .split('\n')
          .find((l) => /Error|error:/.test(l))
          ?.trim();
        throw new Error(
          `the HTTP server process exited (${code}) before sending "${type}"${cause ? `: ${cause}` : ''}`,
        );
      }
    }
  };
  const ready = await next('ready');

  const latencies: number[] = [];
  const winnersBy = new Map<string, number>();
  let unexpected = 0;
  const jobs = ready.requests.flatMap((r) => ready.tokens.map((token) => ({ r, token })));
  // Pairs for one request go out back to back, so they race.
  let next_ = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      for (let i = next_++; i < jobs.length; i = next_++) {
        const { r, token } = jobs[i]!;
        const a = performance.now();
        const res = await fetch(`${ready.url}/api/v1/approvals/${r.id}/decision`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'approve', expectedVersion: r.version, actionHash: r.actionHash }),
        });
        await res.arrayBuffer();
        latencies.push(since(a));
        if (res.status === 200) winnersBy.set(r.id, (winnersBy.get(r.id) ?? 0) + 1);
        else if (res.status !== 409) unexpected++;
      }
    }),
  );
  const ms = since(t0);
  child.send({ type: 'drain' });
  const drained = await next('drained');
  await exited;
  const winners = [...winnersBy.values()].reduce((s, n) => s + n, 0);
  return {
    label: opts.label,
    backend: opts.backend,
    durability: opts.durability,
    concurrency: opts.concurrency,
    requests: opts.requests,
    posts: jobs.length,
    decisionsPerSec: winners / (ms / 1000),
    postsPerSec: jobs.length / (ms / 1000),
    latencyMs: summarize(latencies),
    winners,
    doubleDecisions: [...winnersBy.values()].filter((n) => n > 1).length,
    doubleExecutions: drained.doubles,
    executed: drained.executed,
    unexpected,
    drainSec: drained.drainMs / 1000,
  };
}
