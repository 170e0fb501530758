import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { SlackApp } from '../notify/index.ts';
import { z } from 'zod';
import { ConfigError, ValidationError } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import { authenticate, requireOperator, safeEqual, storeReviewerAuth, type ReviewerAuth } from './auth.ts';
import {
  errorHandler,
  MethodNotAllowedError,
  methodsByPath,
  PayloadTooLargeError,
  RouteNotFoundError,
  type ServerLogger,
} from './errors.ts';
import { createMetrics, type MetricsOptions, type ServerMetrics } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { createRateLimiter, type RateLimiter, type RateLimitOptions } from './rate-limit.ts';
import { auditAuthRefusals } from './refusal-audit.ts';
import { relatedRoutes } from './routes/related.ts';
import { attentionRoutes } from './routes/attention.ts';
import { claimNoteRoutes } from './routes/claims-notes.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { auditRoutes } from './routes/audit.ts';
import { eventRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { createStorageState, type StorageState } from './storage-state.ts';
import { threadRoutes } from './routes/threads.ts';
import type { AppEnv, RouteDeps, ThreadsAdapter, ToolSchemas } from './types.ts';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The engine; its store also holds the reviewers. */
  interlock: Interlock;
  /** How callers are authenticated (default: API tokens checked against the store's reviewers). */
  reviewers?: ReviewerAuth;
  /** Starts and aborts agent runs; without it those endpoints answer 501. */
  threads?: ThreadsAdapter;
  /** Argument schemas for review packets, over those registered with the engine. */
  toolSchemas?: ToolSchemas;
  /** Public URL of the service, e.g. `https://interlock.example.com` (OpenAPI `servers`, CSRF origin). */
  baseUrl?: string;
  /** Decisions per reviewer (default 30 per 10 s); `false` turns the limit off. */
  rateLimit?: Omit<RateLimitOptions, 'now'> | false;
  /** Largest request body accepted, in bytes (default 64 KiB). */
  maxBodyBytes?: number;
  /** Interval of the event stream's keep-alive comment (default 15 s). */
  heartbeatMs?: number;
  /**
   * Who may read /metrics. Default: anyone who reaches the port (scrapers on a private network).
   * `token`: a scraper's bearer token (`Authorization: Bearer …`; the service reads INTERLOCK_METRICS_TOKEN);
   * operators' own tokens are accepted too. `public: false` without a token: operators only.
   */
  metrics?: MetricsOptions & { public?: boolean; token?: string };
  /** Live event streams one reviewer may hold open at once (default 8); more are refused with 429 `too_many_streams`. */
  maxStreamsPerReviewer?: number;
  /** Where unexpected errors are reported (default `console`). */
  logger?: ServerLogger;
  /** A user interface served by the same app, with browser sessions: `createWebUi()` from the web layer. */
  ui?: AppUi;
  /**
   * Decisions from Slack's buttons (`createSlackApp` from interlock/notify): served at
   * `POST /slack/interactions`, authenticated by Slack's request signature rather than a token.
   */
  slack?: Pick<SlackApp, 'handle'>;
}

/** What the app hands a {@link AppUi} when mounting it. */
export interface UiMountContext {
  deps: RouteDeps;
  /** The app's authentication (bearer token, else session cookie with CSRF checks); already guards `/api/*`. */
  authenticate: MiddlewareHandler<AppEnv>;
  /** How callers are authenticated, sessions included. */
  reviewers: ReviewerAuth;
  /** `baseUrl` of the options, if any: the public origin, and whether cookies must be Secure. */
  baseUrl: string | undefined;
  /** The decision rate limit, if any. */
  limiter: RateLimiter | undefined;
}

/**
 * A user interface mounted on the app (the web layer's `createWebUi`). The
 * server only defines this seam, so it does not depend on the layer above it.
 */
export interface AppUi {
  /** Add browser sessions to how callers are authenticated (`verifySession` and `csrfToken`). */
  withSessions(reviewers: ReviewerAuth, interlock: Interlock): ReviewerAuth;
  /** Add the UI's pages, assets and endpoints to `app`; called once, after the API's middleware. */
  mount(app: Hono<AppEnv>, ctx: UiMountContext): void;
  /** OpenAPI path items of the endpoints it adds under /api, merged into /openapi.json. */
  apiPaths?(): Record<string, unknown>;
}

const lifecycles = new WeakMap<object, () => void>();

/**
 * Stop what `app` does in the background: its metrics listener and its open
 * event streams. {@link serve}'s `close()` calls it.
 */
export function closeApp(app: Hono<AppEnv>): void {
  lifecycles.get(app)?.();
  lifecycles.delete(app);
}

function argsSchemaResolver(interlock: Interlock, toolSchemas: ToolSchemas | undefined): RouteDeps['argsSchema'] {
  const cache = new Map<string, Record<string, unknown> | null>();
  return async (tool) => {
    if (cache.has(tool)) return cache.get(tool) ?? null;
    const schema = toolSchemas?.[tool] ?? interlock.toolSchema(tool)?.schema;
    // A tool that runs in another process (an MCP gateway's upstream) has its JSON Schema in the
    // database, as listed; it may be relisted, so it is read each time, not cached.
    if (!schema) return interlock.publishedInputSchema(tool);
    let out: Record<string, unknown> | null = null;
    try {
      // The edit form fills the input side of the schema (before transforms and defaults).
      out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
    } catch {
      out = null; // e.g. a cycle: the reviewer edits raw JSON instead
    }
    cache.set(tool, out);
    return out;
  };
}

/** Refuse options the app cannot start with, naming what to pass instead. */
function checkOptions(options: AppOptions): void {
  if (!options?.interlock || typeof options.interlock.on !== 'function') {
    throw new ConfigError('createApp requires "interlock": pass createInterlock({ store, policy }).');
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) {
    throw new ConfigError(
      `createApp "baseUrl" must be an absolute URL such as "https://interlock.example.com", not "${options.baseUrl}".`,
    );
  }
}

const limitBody = (maxBody: number) =>
  bodyLimit({
    maxSize: maxBody,
    onError: () => {
      throw new PayloadTooLargeError(maxBody);
    },
  });

/** Errors in the one JSON shape; an unknown method on a known path is a 405 with `Allow`, not a 404. */
function handleErrors(
  app: Hono<AppEnv>,
  logger: ServerLogger,
  paths: Record<string, unknown>,
  storage: StorageState,
): void {
  const onError = errorHandler(logger, storage);
  app.onError(onError);
  const allowed = methodsByPath(paths);
  app.notFound((c) => {
    const allow = allowed(c.req.path);
    if (allow && allow.length > 0 && !allow.includes(c.req.method)) {
      c.header('Allow', allow.join(', '));
      return onError(new MethodNotAllowedError(c.req.method, c.req.path, allow), c);
    }
    return onError(new RouteNotFoundError(c.req.method, c.req.path), c);
  });
}

/** Headers, the body limit, no tokens in URLs, refusal audit and authentication, ahead of every API route. */
function guardApi(app: Hono<AppEnv>, interlock: Interlock, auth: MiddlewareHandler<AppEnv>, maxBody: number): void {
  app.use('*', async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    if (c.req.path.startsWith('/api/')) c.header('Cache-Control', 'no-store');
  });
  app.use('/api/*', limitBody(maxBody));
  app.use('/api/*', async (c, next) => {
    // Tokens in URLs leak into logs, proxies and browser history: refuse them outright.
    if (c.req.query('token') !== undefined || c.req.query('access_token') !== undefined) {
      throw new ValidationError('Tokens are not accepted in the URL; send "Authorization: Bearer <token>".', [
        { path: 'query.token', message: 'not allowed' },
      ]);
    }
    await next();
  });
  // Before auth, so that it sees auth's refusals of a decision (no token, a revoked one) and audits them.
  app.use('/api/v1/approvals/:id/decision', auditAuthRefusals(interlock));
  app.use('/api/*', auth);
}

/** Slack's button presses, authenticated by their signature rather than a token. */
function mountSlack(app: Hono<AppEnv>, slack: Pick<SlackApp, 'handle'>, maxBody: number): void {
  app.use('/slack/*', limitBody(maxBody));
  // The signature covers the exact bytes, so the raw text goes to the check, not a parsed form.
  app.post('/slack/interactions', async (c) => {
    const r = await slack.handle({
      body: await c.req.text(),
      headers: {
        timestamp: c.req.header('x-slack-request-timestamp'),
        signature: c.req.header('x-slack-signature'),
      },
    });
    return c.json(r.body as Record<string, unknown>, r.status as 200);
  });
}

/** The API's routes and the probes; `streams` collects the open event streams, for closing the app. */
function mountRoutes(
  app: Hono<AppEnv>,
  deps: RouteDeps,
  options: AppOptions,
  limiter: RateLimiter | undefined,
  streams: Set<() => void>,
  storage: StorageState,
): void {
  const { interlock } = options;
  app.route('/api/v1', approvalRoutes(deps, limiter));
  app.route('/api/v1', relatedRoutes(deps));
  app.route('/api/v1', attentionRoutes(deps));
  app.route('/api/v1', claimNoteRoutes(deps));
  app.route('/api/v1', auditRoutes(deps));
  app.route('/api/v1', threadRoutes(deps));
  app.route(
    '/api/v1',
    eventRoutes(deps, {
      heartbeatMs: options.heartbeatMs ?? 15_000,
      maxBuffered: 1000,
      open: streams,
      maxPerReviewer: options.maxStreamsPerReviewer ?? 8,
    }),
  );
  app.route(
    '/',
    healthRoutes(
      {
        name: interlock.storeName,
        getAuditHeads: () => interlock.audit.getAuditHeads(),
        clockSkew: () => interlock.clockSkew(),
      },
      { readyTimeoutMs: 2000, storage },
    ),
  );
}

/** /metrics, open or guarded by a scraper token or operators' credentials as `options.metrics` says. */
function mountMetrics(
  app: Hono<AppEnv>,
  metrics: ServerMetrics,
  options: AppOptions['metrics'],
  auth: MiddlewareHandler<AppEnv>,
): void {
  const scraperToken = options?.token;
  if (scraperToken !== undefined && scraperToken.length < 16)
    throw new ConfigError(
      'metrics.token (INTERLOCK_METRICS_TOKEN) must be at least 16 characters; generate one with `openssl rand -hex 24`.',
    );
  if (scraperToken !== undefined || options?.public === false) {
    const metricsAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
      // The scraper's own token, compared in constant time; otherwise an operator's credentials.
      const sent = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
      if (scraperToken !== undefined && sent !== undefined && safeEqual(sent, scraperToken)) return next();
      return auth(c, async () => {
        requireOperator(c.var.principal, 'read metrics');
        await next();
      });
    };
    app.use('/metrics', metricsAuth);
  }
  app.get('/metrics', async (c) => c.body(await metrics.render(), 200, { 'Content-Type': metrics.contentType }));
}

/**
 * The HTTP API as a Hono app: the approval queue, decisions, live events,
 * audit, probes, metrics and the OpenAPI document. Errors are mapped to
 * `{ error: { code, message, details? } }` in one place.
 * @example
 * const app = createApp({ interlock });
 * const server = await serve({ app, port: 8080 });
 * // later: await server.close();
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  checkOptions(options);
  const { interlock } = options;
  const maxBody = options.maxBodyBytes ?? 64 * 1024;
  const logger: ServerLogger = options.logger ?? {
    error: (message, meta) => console.error(`[interlock] ${message}`, meta),
  };
  const limiter =
    options.rateLimit === false
      ? undefined
      : createRateLimiter(options.rateLimit ?? { capacity: 30, windowMs: 10_000 });
  const streams = new Set<() => void>();
  const deps: RouteDeps = {
    interlock,
    threads: options.threads,
    argsSchema: argsSchemaResolver(interlock, options.toolSchemas),
  };
  const baseReviewers = options.reviewers ?? storeReviewerAuth(interlock.reviewers);
  const reviewers = options.ui ? options.ui.withSessions(baseReviewers, interlock) : baseReviewers;
  const auth = authenticate(reviewers, options.baseUrl ? new URL(options.baseUrl).origin : undefined);
  // Made after every option is checked (authenticate refuses a bad pairing): it starts gauges.
  const metrics = createMetrics(interlock, options.metrics);
  const openapi = openApiDocument(options.baseUrl ? { baseUrl: options.baseUrl } : {});
  if (options.ui?.apiPaths) Object.assign(openapi.paths as Record<string, unknown>, options.ui.apiPaths());

  // Engine events follow commits: one means the storage took a write again (a missed-events notice is no write).
  const storage = createStorageState();
  const offStorage = interlock.on((e) => {
    if (e.type !== 'events.missed') storage.markWritten();
  });

  const app = new Hono<AppEnv>();
  handleErrors(app, logger, openapi.paths as Record<string, unknown>, storage);
  guardApi(app, interlock, auth, maxBody);
  if (options.slack) mountSlack(app, options.slack, maxBody);
  options.ui?.mount(app, { deps, authenticate: auth, reviewers, baseUrl: options.baseUrl, limiter });
  mountRoutes(app, deps, options, limiter, streams, storage);
  mountMetrics(app, metrics, options.metrics, auth);
  app.get('/openapi.json', (c) => c.json(openapi));

  lifecycles.set(app, () => {
    offStorage();
    metrics.dispose();
    for (const end of [...streams]) end();
  });
  return app;
}
