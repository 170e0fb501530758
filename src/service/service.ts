import { ConfigError } from '../core/index.ts';
import {
  createInterlock,
  DEFAULT_CLAIM_MS,
  DEFAULT_LEASE_MS,
  type Interlock,
  type ThreadRunner,
} from '../engine/index.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';
import {
  createApp,
  createReviewer,
  jwtOptionsFromEnv,
  serve,
  storeReviewerAuth,
  withJwtAuth,
  type JwtAuthOptions,
  type RunningServer,
  type ThreadsAdapter,
} from '../server/index.ts';
import {
  createNotifier,
  createSlackApp,
  type Channel,
  type RoutingConfig,
  type SlackApp,
  type SlackInteraction,
} from '../notify/index.ts';
import { createWorker, DEFAULT_UNKNOWN_AGENT_MS, type Worker } from '../worker/index.ts';
import { batchOptionsFromEnv, createWebUi } from '../web/index.ts';
import { toolEntries, type InterlockConfig } from './config.ts';
import { createThreadsAdapter } from './threads.ts';

/** Options of {@link startService}. */
export interface ServiceOptions {
  config: InterlockConfig;
  /** `postgres://…` for PostgreSQL; default the embedded SQLite file under `INTERLOCK_DATA_DIR` (./data). */
  databaseUrl?: string;
  /** HTTP port (default 3000); 0 picks a free one. Omit `http` to run no server (a worker alone). */
  port?: number;
  hostname?: string;
  /** Run the HTTP API and UI (default true). */
  http?: boolean;
  /** Run the resume worker, sweeper and notification delivery (default true). */
  worker?: boolean;
  /** Public URL for review links (default `http://localhost:<port>`). */
  baseUrl?: string;
  /** Start the config's demo conversations. */
  seedDemo?: boolean;
  /** Create the config's demo reviewers when the database has none, and print their tokens. */
  demoReviewers?: boolean;
  /** Where progress lines go (default stdout). */
  log?: (line: string) => void;
  /** Poll interval of the worker (default 200 ms). */
  pollMs?: number;
  /**
   * Lease of thread runs, execution claims and jobs (default `INTERLOCK_LEASE_MS`, else 60 s): how soon
   * another process takes over the work of one that died.
   */
  leaseMs?: number;
  /**
   * How long a resume job whose agent this process's worker lacks is left for another worker before
   * its thread fails (default `INTERLOCK_UNKNOWN_AGENT_MS`, else 15 minutes).
   */
  unknownAgentMs?: number;
}

/** A running service. */
export interface Service {
  interlock: Interlock;
  store: Store;
  agents: Map<string, ThreadRunner>;
  server: RunningServer | undefined;
  worker: Worker | undefined;
  /** Tokens of demo reviewers created on this start (empty after the first start). */
  demoTokens: Array<{ name: string; roles: string[]; token: string }>;
  url: string | undefined;
  /** Graceful stop: stop taking work, finish what is in hand, close the database. */
  close(): Promise<void>;
}

/** A duration in ms from the environment, checked: a typo must not silently become the default or NaN. */
function msFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new ConfigError(
      `${name} must be a whole number of milliseconds, at least ${min} (e.g. ${fallback}), not "${raw}".`,
    );
  return n;
}

/** How long a reviewer's claim on a request lasts unless their open card renews it: `INTERLOCK_CLAIM_MS`, default 10 minutes. */
const claimMsFromEnv = () => msFromEnv(process.env, 'INTERLOCK_CLAIM_MS', DEFAULT_CLAIM_MS, 1000);

/** The web queue is always a channel: requests appear there live. Other channels come from the config. */
const queueChannel: Channel = { name: 'web-queue', send: async () => undefined };

function routing(config: InterlockConfig, env: NodeJS.ProcessEnv, slack: SlackApp | undefined): RoutingConfig {
  const r = config.notifications?.(env, slack ? { slack } : {});
  if (!r) return { channels: { 'web-queue': queueChannel }, routes: {}, default: ['web-queue'] };
  return r;
}

/**
 * Start Interlock as one process: the HTTP API and UI, the resume worker, the
 * timeout sweeper and notification delivery, over the embedded database or
 * PostgreSQL. With `http: false` it is a worker alone (`interlock worker`).
 */
export async function startService(o: ServiceOptions): Promise<Service> {
  const log = o.log ?? ((l: string) => console.log(l));
  const leaseMs = o.leaseMs ?? msFromEnv(process.env, 'INTERLOCK_LEASE_MS', DEFAULT_LEASE_MS, 100);
  const unknownAgentMs =
    o.unknownAgentMs ?? msFromEnv(process.env, 'INTERLOCK_UNKNOWN_AGENT_MS', DEFAULT_UNKNOWN_AGENT_MS, 0);
  const store = await openStore(o.databaseUrl);
  // One lease for everything that can be taken over: thread runs, execution claims, jobs, thread starts.
  const tools = toolEntries(o.config.tools);
  const interlock = createInterlock({ store, policy: o.config.policy, leaseMs, claimMs: claimMsFromEnv(), tools });
  const agents = new Map((await o.config.agents({ interlock })).map((a) => [a.name, a]));
  const demoTokens = await createDemoReviewers(o, store);

  // Deployments with an identity provider also accept its JWTs (INTERLOCK_JWT_ISSUER, _AUDIENCE, _JWKS_URL).
  const jwt = jwtOptionsFromEnv(process.env);
  const threads = createThreadsAdapter(interlock, agents, (m) => log(m), { recoverAfterMs: leaseMs });
  let baseUrl = o.baseUrl ?? process.env.INTERLOCK_BASE_URL;
  // Made once the public URL is known (its messages link to the review page); the endpoint waits for it.
  let slack: SlackApp | undefined;
  const slackSettings = o.config.slack?.(process.env);
  const server =
    o.http === false
      ? undefined
      : await startServer(o, {
          interlock,
          store,
          threads,
          jwt,
          baseUrl,
          slack: slackSettings ? () => slack : undefined,
        });
  if (server) baseUrl ??= `http://localhost:${server.port}`;
  baseUrl ??= 'http://localhost:3000';
  let stopSlack: (() => void) | undefined;
  if (slackSettings) {
    slack = createSlackApp({ ...slackSettings, interlock, baseUrl, onError: (m) => log(m) });
    // Messages follow every decision, from any channel and any process sharing the database.
    stopSlack = slack.start();
  }
  const worker =
    o.worker === false
      ? undefined
      : startWorker(o, {
          interlock,
          agents,
          leaseMs,
          unknownAgentMs,
          log,
          baseUrl,
          routing: routing(o.config, process.env, slack),
        });

  if (o.seedDemo) {
    for (const c of o.config.demo?.conversations ?? []) {
      const { threadId } = await threads.start(c.agent, c.input);
      log(`seeded ${threadId}: ${c.input}`);
    }
    await threads.idle();
  }

  let closing: Promise<void> | undefined;
  return {
    interlock,
    store,
    agents,
    server,
    worker,
    demoTokens,
    url: server ? baseUrl : undefined,
    close() {
      closing ??= (async () => {
        stopSlack?.();
        await server?.close();
        await worker?.stop();
        await threads.idle();
        await store.close();
      })();
      return closing;
    },
  };
}

/** The config's demo reviewers, created when the database has none yet; their tokens, to print once. */
async function createDemoReviewers(o: ServiceOptions, store: Store): Promise<Service['demoTokens']> {
  const demoTokens: Service['demoTokens'] = [];
  if (o.demoReviewers !== false && o.config.demo?.reviewers?.length && (await store.listReviewers()).length === 0) {
    for (const r of o.config.demo.reviewers) {
      const { token } = await createReviewer(store, r);
      demoTokens.push({ name: r.name, roles: r.roles, token });
    }
  }
  return demoTokens;
}

/** The HTTP API and UI, listening. `slack` answers Slack's interactions once the Slack app is made. */
async function startServer(
  o: ServiceOptions,
  deps: {
    interlock: Interlock;
    store: Store;
    threads: ThreadsAdapter;
    jwt: JwtAuthOptions | undefined;
    baseUrl: string | undefined;
    slack: (() => SlackApp | undefined) | undefined;
  },
): Promise<RunningServer> {
  const { jwt, baseUrl, slack } = deps;
  // /metrics: open unless INTERLOCK_METRICS_TOKEN is set; then scrapers send it as a bearer token (operators' tokens work too).
  const metricsToken = process.env.INTERLOCK_METRICS_TOKEN;
  const app = createApp({
    ...(jwt ? { reviewers: withJwtAuth(storeReviewerAuth(deps.store), jwt) } : {}),
    interlock: deps.interlock,
    threads: deps.threads,
    ui: createWebUi({ batch: batchOptionsFromEnv(process.env) }),
    ...(baseUrl ? { baseUrl } : {}),
    ...(metricsToken ? { metrics: { token: metricsToken } } : {}),
    ...(slack
      ? {
          slack: {
            handle: async (r: SlackInteraction) => {
              const made = slack();
              return made
                ? made.handle(r)
                : { status: 503, body: { error: { code: 'starting', message: 'starting' } } };
            },
          },
        }
      : {}),
  });
  return serve({ app, port: o.port ?? 3000, hostname: o.hostname ?? process.env.HOST ?? '127.0.0.1' });
}

/** The resume worker, sweeper and notification delivery, started. */
function startWorker(
  o: ServiceOptions,
  deps: {
    interlock: Interlock;
    agents: Map<string, ThreadRunner>;
    leaseMs: number;
    unknownAgentMs: number;
    log: (line: string) => void;
    baseUrl: string;
    routing: RoutingConfig;
  },
): Worker {
  const { interlock, log } = deps;
  const notifier = createNotifier({ interlock, routing: deps.routing, baseUrl: deps.baseUrl });
  const worker = createWorker({
    interlock,
    agents: [...deps.agents.values()],
    notifier,
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
    leaseMs: deps.leaseMs,
    unknownAgentMs: deps.unknownAgentMs,
    onWarning: (m) => log(`worker: ${m}`),
    onError: (e) => log(`worker: ${e instanceof Error ? e.message : String(e)}`),
  });
  worker.start();
  return worker;
}
