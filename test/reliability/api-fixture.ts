// The API of the chaos deployment served over real HTTP in this process (no
// worker: nothing changes the database behind a test's back), for the bad-input
// and security tests that compare the database before and after each request.
import type { Agent } from '../../src/agent/index.ts';
import { createInterlock, type Interlock } from '../../src/engine/index.ts';
import { createApp, serve, type RunningServer } from '../../src/server/index.ts';
import { createThreadsAdapter } from '../../src/service/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { BackendInitializer } from '../../src/testing/backends.ts';
import { fetchJson, type JsonResponse } from '../../src/testing/http.ts';
import { createRunReviewers } from './crash-harness.ts';
import config from './fixtures/chaos.config.ts';
import type { ReviewerCredential } from './traffic.ts';

/** A running API over a fresh store, with the run's reviewers. */
export interface ApiFixture {
  store: Store;
  interlock: Interlock;
  agent: Agent;
  url: string;
  operator: ReviewerCredential;
  /** Supervisors, then finance reviewers (see createRunReviewers). */
  reviewers: ReviewerCredential[];
  /** Errors the app logged (none expected: every bad input is the caller's mistake). */
  logged: Array<{ message: string; meta: Record<string, unknown> }>;
  call<T = { error?: { code: string; message: string } }>(
    path: string,
    token: string | null,
    init?: { method?: string; body?: unknown; rawBody?: RequestInit['body']; headers?: Record<string, string> },
  ): Promise<JsonResponse<T>>;
  /** Propose a refund through the agent (in-process) and return the pending request's id. */
  propose(threadId: string, args: Record<string, unknown>): Promise<string>;
  /** The database as far as a decision could change it: every request, votes, jobs, executions, the audit head. */
  snapshot(): Promise<string>;
  close(): Promise<void>;
}

/** Serve the chaos deployment's API on a free port over `backend`. */
export async function startApiFixture(backend: BackendInitializer): Promise<ApiFixture> {
  const store = await backend.create();
  const interlock = createInterlock({ store, policy: config.policy });
  // The config's agent is the order-support example's native agent.
  const [agent] = (await config.agents({ interlock })) as Agent[];
  const threads = createThreadsAdapter(interlock, new Map([[agent!.name, agent!]]), () => undefined, {
    recoverAfterMs: 3_600_000,
  });
  const logged: ApiFixture['logged'] = [];
  // The per-reviewer rate limit has its own test (src/server/approvals.int.test.ts); here it would only slow the fuzzing.
  const app = createApp({
    interlock,
    threads,
    rateLimit: false,
    logger: { error: (message, meta) => logged.push({ message, meta }) },
  });
  const server: RunningServer = await serve({ app, port: 0 });
  const { operator, reviewers } = await createRunReviewers(store);
  return {
    store,
    interlock,
    agent: agent!,
    url: server.url,
    operator,
    reviewers,
    logged,
    call: (path, token, init = {}) => fetchJson(server.url + path, { ...init, ...(token === null ? {} : { token }) }),
    async propose(threadId, args) {
      const r = await agent!.invoke(JSON.stringify(args), { threadId });
      const id = r.interrupts[0]?.id;
      if (r.stopReason !== 'interrupt' || !id)
        throw new Error(`expected ${JSON.stringify(args)} to pause, got ${r.stopReason}`);
      return id;
    },
    async snapshot() {
      const [requests, votes, jobs, executions, head] = await Promise.all([
        store.unsafeQuery('SELECT * FROM il_requests ORDER BY id'),
        store.unsafeQuery('SELECT * FROM il_votes ORDER BY request_id, reviewer'),
        store.unsafeQuery('SELECT id, status, attempts FROM il_jobs ORDER BY id'),
        store.unsafeQuery('SELECT key, status FROM il_executions ORDER BY key'),
        store.getAuditHeads(),
      ]);
      return JSON.stringify({ requests, votes, jobs, executions, head });
    },
    async close() {
      await server.close();
      await threads.idle();
    },
  };
}
