import type { Hono } from 'hono';
import { ConfigError } from '../core/index.ts';
import type { AppUi, UiMountContext } from '../server/app.ts';
import type { ReviewerAuth } from '../server/auth.ts';
import type { AppEnv } from '../server/types.ts';
import { checkBatchOptions, type BatchOptions } from './batch-options.ts';
import { webApiPaths } from './openapi-paths.ts';
import { assetRoutes } from './routes/asset-routes.ts';
import { batchRoutes } from './routes/batch.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { nextRequestRoutes } from './routes/next-request.ts';
import { pageRoutes } from './routes/page-routes.ts';
import { sessionRoutes } from './routes/session-routes.ts';
import { timelineRoutes } from './routes/timeline.ts';
import { securityHeaders } from './security-headers.ts';
import { createSessions, type Sessions } from './sessions.ts';
import { webContext } from './web-context.ts';

/** Options of {@link createWebUi}. */
export interface WebUiOptions {
  /** Lifetime of a browser session after sign-in (default 12 h). */
  sessionTtlMs?: number;
  /** Batch review: which requests a batch page ticks before the reviewer does (default: none). */
  batch?: BatchOptions;
}

/** UI paths that answer with pages or assets (and get the UI's security headers). */
const UI_PATHS = [
  '/',
  '/signin',
  '/session',
  '/signout',
  '/approvals/*',
  '/threads/*',
  '/metrics-dashboard',
  '/batch',
  '/ui/*',
];

/**
 * The reviewer web UI, for `createApp({ ui: createWebUi() })`: sign-in with a
 * reviewer token into a server-side session, the approval queue with live
 * updates, review cards, batch approval, thread timelines and metrics charts.
 * It adds to the API `GET /batch` + `POST /batch/decision`,
 * `GET /threads/:id/timeline`, `GET /dashboard` and `GET /review/next` (under /api/v1).
 * @example
 * const app = createApp({ interlock, threads, ui: createWebUi() });
 * await serve({ app, port: 3000 }); // open http://localhost:3000 and sign in with a token
 */
export function createWebUi(options: WebUiOptions = {}): AppUi {
  const batch = checkBatchOptions(options.batch);
  // Sessions belong to the auth they were added to, so one UI object can serve several apps.
  const sessionsOf = new WeakMap<ReviewerAuth, Sessions>();
  return {
    withSessions(reviewers, interlock) {
      const sessions = createSessions(
        { ...interlock.sessions, getReviewer: (id) => interlock.reviewers.getReviewer(id) },
        { now: () => interlock.now(), ...(options.sessionTtlMs !== undefined && { ttlMs: options.sessionTtlMs }) },
      );
      const auth = sessions.authWith(reviewers);
      sessionsOf.set(auth, sessions);
      return auth;
    },
    mount(app: Hono<AppEnv>, ctx: UiMountContext) {
      const sessions = sessionsOf.get(ctx.reviewers);
      if (!sessions)
        throw new ConfigError(
          'createWebUi: mount() needs the ReviewerAuth returned by withSessions(); pass the UI to createApp({ ui }) rather than calling it directly.',
        );
      const w = webContext(ctx.baseUrl);
      const headers = securityHeaders((c) => w.secure(c));
      for (const path of UI_PATHS) app.use(path, headers);
      app.route('/api/v1', batchRoutes(ctx.deps, ctx.limiter, batch));
      app.route('/api/v1', timelineRoutes(ctx.deps));
      app.route('/api/v1', dashboardRoutes(ctx.deps));
      app.route('/api/v1', nextRequestRoutes(ctx.deps));
      app.route('/', sessionRoutes(w, ctx.reviewers, sessions));
      app.route('/', pageRoutes(w, sessions));
      app.route('/', assetRoutes());
    },
    apiPaths: webApiPaths,
  };
}
