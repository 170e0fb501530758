import { z } from 'zod';
import type { ApprovalRequest, PolicyConfig } from '../../src/core/index.ts';
import { createInterlock, type Interlock } from '../../src/engine/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { BackendInitializer } from '../../src/testing/backends.ts';
import { manualClock, type ManualClock } from '../../src/testing/clock.ts';
import { fetchJson, type JsonResponse } from '../../src/testing/http.ts';
import { createApp, type AppOptions } from '../../src/server/app.ts';
import { createReviewer } from '../../src/server/auth.ts';
import { serve, type RunningServer } from '../../src/server/serve.ts';

/** The server's integration tests share this world: a policy, reviewers, a running server. Not part of the API. */

export const refundSchema = z.strictObject({
  orderId: z.string(),
  customerId: z.string(),
  amount: z.number().positive(),
});

export const testPolicy: PolicyConfig = {
  tools: {
    issue_refund: [
      { id: 'small', tier: 'auto', reason: 'refund up to $500' },
      {
        id: 'large',
        tier: 'approve',
        role: 'supervisor',
        timeout: '30m',
        reason: 'refund over $500',
        when: ({ args }) => Number(args.amount) > 500,
      },
      {
        id: 'huge',
        tier: 'escalate',
        role: 'supervisor',
        approvals: 2,
        timeout: '30m',
        reason: 'refund over $2,000 needs two supervisors',
        when: ({ args }) => Number(args.amount) > 2000,
      },
    ],
    wire_funds: [{ id: 'wire', tier: 'approve', role: 'finance', timeout: '1h', reason: 'wires need finance' }],
  },
};

/** Reviewers of the fixture, by first name. */
export type Who = 'alice' | 'bob' | 'carol' | 'olga' | 'revoked';

export interface ServerFixture {
  store: Store;
  interlock: Interlock;
  clock: ManualClock;
  server: RunningServer;
  url: string;
  tokens: Record<Who, string>;
  ids: Record<Who, string>;
  /** Errors the app logged (tests assert on them, so nothing reaches the console). */
  logged: Array<{ message: string; meta: Record<string, unknown> }>;
  /** Call the API as `who` (or with no token when `who` is null). */
  call<T = Record<string, unknown>>(
    path: string,
    who: Who | null,
    init?: { method?: string; body?: unknown; rawBody?: RequestInit['body']; headers?: Record<string, string> },
  ): Promise<JsonResponse<T>>;
  /** Pause a thread on a refund of `amount`; returns the pending request. */
  pauseRefund(
    amount: number,
    opts?: { proposer?: string; threadId?: string; customerId?: string },
  ): Promise<ApprovalRequest>;
  /** Pause a thread on a wire (role finance). */
  pauseWire(): Promise<ApprovalRequest>;
  close(): Promise<void>;
}

let seq = 0;

/** Start a server on port 0 over a fresh store of `backend`. */
export async function startServerFixture(
  backend: BackendInitializer,
  appOptions: Partial<AppOptions> = {},
): Promise<ServerFixture> {
  const store = await backend.create();
  const clock = manualClock();
  const interlock = createInterlock({
    store,
    policy: testPolicy,
    tools: { issue_refund: { schema: refundSchema } },
    now: clock.now,
  });
  const logged: ServerFixture['logged'] = [];
  const app = createApp({
    interlock,
    logger: { error: (message, meta) => logged.push({ message, meta }) },
    rateLimit: { capacity: 10_000, windowMs: 1000 },
    ...appOptions,
  });
  const server = await serve({ app, port: 0 });
  const roles: Record<Who, string[]> = {
    alice: ['supervisor'],
    bob: ['supervisor'],
    carol: ['finance'],
    olga: ['operator'],
    revoked: ['supervisor'],
  };
  const tokens = {} as Record<Who, string>;
  const ids = {} as Record<Who, string>;
  for (const who of Object.keys(roles) as Who[]) {
    const { reviewer, token } = await createReviewer(store, { name: who, roles: roles[who] });
    tokens[who] = token;
    ids[who] = reviewer.id;
  }
  await store.revokeReviewer(ids.revoked);

  const pause = async (call: { tool: string; args: Record<string, unknown> }, proposer: string, threadId?: string) => {
    const verdict = await interlock.gate(call);
    const { requests } = await interlock.pause({
      thread: { id: threadId ?? `t-${backend.name}-${++seq}`, agent: 'support', agentVersion: '1' },
      checkpoint: { newMessages: [{ role: 'user', content: 'please' }], state: {}, schemaVersion: 1 },
      items: [
        {
          call,
          verdict,
          evidence: { customerMessage: 'Refund me now! <script>alert(1)</script> mail jane.doe@example.com' },
        },
      ],
      proposer,
    });
    return requests[0]!;
  };

  return {
    store,
    interlock,
    clock,
    server,
    url: server.url,
    tokens,
    ids,
    logged,
    call: (path, who, init = {}) =>
      fetchJson(server.url + path, { ...init, ...(who === null ? {} : { token: tokens[who] }) }),
    pauseRefund: (amount, opts = {}) =>
      pause(
        { tool: 'issue_refund', args: { orderId: `ORD-${++seq}`, customerId: opts.customerId ?? 'c1', amount } },
        opts.proposer ?? 'agent:support',
        opts.threadId,
      ),
    pauseWire: () => pause({ tool: 'wire_funds', args: { to: 'ACME', amount: 10_000 } }, 'agent:support'),
    async close() {
      await server.close();
      await backend.destroy();
    },
  };
}

/** The guard fields of a decision on `req`. */
export function guard(req: Pick<ApprovalRequest, 'version' | 'actionHash'>) {
  return { expectedVersion: req.version, actionHash: req.actionHash };
}
