/** The HTTP API: approval queue, decisions, live events, audit, probes, metrics, OpenAPI. */
export { createApp, closeApp, type AppOptions, type AppUi, type UiMountContext } from './app.ts';
export { serve, type RunningServer } from './serve.ts';
export {
  createReviewer,
  CsrfError,
  CSRF_HEADER,
  hashToken,
  storeReviewerAuth,
  OPERATOR_ROLE,
  SESSION_COOKIE,
  type AuthOutcome,
  type Principal,
  type ReviewerAuth,
} from './auth.ts';
export {
  UnauthorizedError,
  PayloadTooLargeError,
  RateLimitedError,
  NotImplementedError,
  type ServerLogger,
} from './errors.ts';
export { createMetrics, type MetricsOptions, type ServerMetrics } from './metrics.ts';
export { openApiDocument } from './openapi.ts';
export { createRateLimiter, type RateLimiter, type RateLimitOptions } from './rate-limit.ts';
export type { AppEnv, RouteDeps, ThreadsAdapter, ThreadView, ToolSchemas } from './types.ts';
export { withJwtAuth, jwtOptionsFromEnv, type JwtAuthOptions } from './jwt-auth.ts';
