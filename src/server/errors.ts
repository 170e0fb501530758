import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import {
  InterlockError,
  InterlockUsageError,
  ValidationError,
  type ErrorCode,
  type ErrorDetails,
  type FieldIssue,
} from '../core/index.ts';
import { isStorageFull, isStoreUnavailable } from '../store/index.ts';
import type { StorageState } from './storage-state.ts';

/**
 * The HTTP layer's own refusals, and the one place that turns any error into a
 * response: `{ error: { code, message, details? } }`.
 */

/**
 * The HTTP status of every error code: the one place HTTP meets the error union. A code added to
 * `ERROR_CODES` without a status here fails the type check. `<kind>_not_found` codes are 404.
 */
export const HTTP_STATUS: Readonly<Record<Exclude<ErrorCode, `${string}_not_found`>, number>> = {
  invalid_input: 400,
  invalid_config: 500,
  unknown_field: 400,
  config_exists: 409,
  payload_too_large: 413,
  method_not_allowed: 405,
  not_found: 404,
  unauthorized: 401,
  token_revoked: 401,
  csrf_failed: 403,
  forbidden_role: 403,
  self_approval: 403,
  duplicate_reviewer: 403,
  decision_not_allowed: 403,
  reason_required: 422,
  forbidden: 403,
  policy_blocked: 403,
  rate_limited: 429,
  too_many_streams: 429,
  stale_version: 409,
  action_hash_mismatch: 409,
  already_resolved: 409,
  request_expired: 410,
  not_authorized: 409,
  illegal_transition: 409,
  batch_digest_mismatch: 400,
  thread_exists: 409,
  thread_interrupted: 409,
  wrong_agent: 409,
  not_wired: 500,
  duplicate_call_id: 422,
  child_thread: 409,
  planted_check: 409,
  unknown_agent: 409,
  incompatible_agent_version: 409,
  lease_lost: 409,
  model_bad_tool_input: 500,
  unsupported_schema_version: 500,
  store_error: 503,
  store_unavailable: 503,
  storage_full: 503,
  not_ready: 503,
  not_implemented: 501,
  delivery_failed: 502,
  internal: 500,
};

/** The HTTP status an error is answered with (see {@link HTTP_STATUS}). */
export function httpStatus(err: Pick<InterlockError, 'code'>): number {
  const known = (HTTP_STATUS as Record<string, number | undefined>)[err.code];
  if (known !== undefined) return known;
  return err.code.endsWith('_not_found') ? 404 : 500;
}

/** Where the server reports faults it hides from clients (500s). */
export interface ServerLogger {
  error(message: string, meta: Record<string, unknown>): void;
}

/** The caller did not prove who they are. */
export class UnauthorizedError extends InterlockUsageError {
  /** The reviewer a revoked token belonged to (for the audit; never sent to the caller). */
  readonly reviewerId: string | undefined;

  constructor(code: 'unauthorized' | 'token_revoked', message: string, reviewerId?: string) {
    super(code, message);
    this.reviewerId = reviewerId;
  }
}

/** The body is larger than the server accepts. */
export class PayloadTooLargeError extends InterlockUsageError {
  constructor(maxBytes: number) {
    super('payload_too_large', `The request body is larger than ${maxBytes} bytes; send a smaller body.`, {
      details: { maxBytes },
    });
  }
}

/** The reviewer sent decisions faster than allowed. */
export class RateLimitedError extends InterlockUsageError {
  constructor(retryAfterSeconds: number) {
    super('rate_limited', `Too many decisions in a short time; wait ${retryAfterSeconds} s and try again.`, {
      details: { retryAfterSeconds },
    });
  }
}

/** A feature this server was started without. */
export class NotImplementedError extends InterlockUsageError {
  constructor(message: string) {
    super('not_implemented', message);
  }
}

/** No route answers this method and path. */
export class RouteNotFoundError extends InterlockUsageError {
  constructor(method: string, path: string) {
    super('not_found', `No route for ${method} ${path}. See /openapi.json for the routes this server answers.`, {
      details: { method, path },
    });
  }
}

/** The path exists, but not for this method; `allow` lists the methods it answers. */
export class MethodNotAllowedError extends InterlockUsageError {
  constructor(method: string, path: string, allow: readonly string[]) {
    super(
      'method_not_allowed',
      `${path} does not answer ${method}; it answers ${allow.join(', ')}. See /openapi.json.`,
      { details: { method, path, allow } },
    );
  }
}

/**
 * Which methods each documented path answers, from the OpenAPI document's path
 * items (`/api/v1/approvals/{id}` matches any one segment for `{id}`), so a wrong
 * method gets 405 with `Allow` instead of a 404.
 */
export function methodsByPath(paths: Record<string, unknown>): (path: string) => string[] | undefined {
  const HTTP = ['get', 'post', 'put', 'patch', 'delete'];
  const table = Object.entries(paths).map(([template, item]) => ({
    re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    methods: Object.keys(item as object)
      .filter((m) => HTTP.includes(m))
      .map((m) => m.toUpperCase()),
  }));
  return (path) => table.find((t) => t.re.test(path))?.methods;
}

/** Zod issues as the per-field list the API returns, paths prefixed with where the input came from. */
export function fieldIssues(error: z.core.$ZodError, prefix?: string): FieldIssue[] {
  return error.issues.map((i) => ({
    path: [...(prefix ? [prefix] : []), ...i.path.map(String)].join('.') || '(root)',
    message: i.message,
  }));
}

/** Parse `input` with `schema`, or throw a {@link ValidationError} listing each bad field. */
export function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown, what: string, prefix?: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = fieldIssues(parsed.error, prefix);
  throw new ValidationError(
    `The ${what} is invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}. Fix it and send again.`,
    issues,
  );
}

const STATUS_CODES: Partial<Record<number, string>> = {
  400: 'invalid_input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  429: 'rate_limited',
};

function body(code: string, message: string, details?: ErrorDetails) {
  return { error: details && Object.keys(details).length > 0 ? { code, message, details } : { code, message } };
}

/** Headers a refusal carries: how to authenticate, when to retry. */
function headersFor(err: InterlockError): Record<string, string> {
  const status = httpStatus(err);
  if (status === 401) return { 'WWW-Authenticate': 'Bearer realm="interlock"' };
  if (status === 429 && typeof err.details.retryAfterSeconds === 'number')
    return { 'Retry-After': String(err.details.retryAfterSeconds) };
  return {};
}

/** What a client is told when the database cannot be reached, or its storage cannot take a write. */
const STORE_FAULTS = {
  store_unavailable: {
    message:
      'The database does not answer right now; try again in a moment (a write that did land is then refused with its own code, e.g. already_resolved).',
    retryAfter: '2',
  },
  storage_full: {
    message:
      "The database's storage is full or failing, so nothing was written: free space on the volume that holds the database (or replace the failing disk), then try again. Writes resume by themselves once there is space.",
    retryAfter: '10',
  },
} as const;

/**
 * Which store fault `err` is, if any. Checked before an error's own code: the driver's error may come
 * wrapped (a StoreError around a pool that could not connect), and the cause is what the client can act on.
 */
export function storeFault(err: unknown): keyof typeof STORE_FAULTS | undefined {
  if (err instanceof InterlockUsageError) return undefined;
  if (isStorageFull(err)) return 'storage_full';
  if (isStoreUnavailable(err)) return 'store_unavailable';
  return undefined;
}

/**
 * The app's `onError`: every error of every route ends here.
 * - the database unreachable, restarting, busy or past its deadline ({@link isStoreUnavailable}): 503
 *   `store_unavailable` with Retry-After; its storage full or failing ({@link isStorageFull}): 503
 *   `storage_full` with Retry-After, and `storage` is marked full for /readyz.
 * - {@link InterlockError}: its code's status ({@link HTTP_STATUS}), code and message; details unless it is a system fault.
 * - zod errors: 400 `invalid_input` with per-field issues.
 * - hono's HTTPException: its status, with a code named after it.
 * - anything else: 500 `internal`, logged, with nothing of the error in the body.
 */
export function errorHandler(logger: ServerLogger, storage?: StorageState) {
  return (err: Error, c: Context): Response => {
    const fault = storeFault(err);
    if (fault) {
      // The client may retry; operators see it in the log and /readyz.
      logger.error(fault === 'storage_full' ? 'storage full' : 'store unavailable', {
        method: c.req.method,
        path: c.req.path,
        error: err,
      });
      if (fault === 'storage_full') storage?.markFull();
      const { message, retryAfter } = STORE_FAULTS[fault];
      return c.json(body(fault, message), 503, { 'Retry-After': retryAfter });
    }
    if (err instanceof InterlockError) {
      const status = httpStatus(err);
      if (status >= 500 && status !== 501) {
        logger.error('request failed', { method: c.req.method, path: c.req.path, code: err.code, error: err });
        // System faults keep their stable code and message, but not their details (ids, SQL state).
        return c.json(body(err.code, err.message), status as ContentfulStatusCode, headersFor(err));
      }
      return c.json(body(err.code, err.message, err.details), status as ContentfulStatusCode, headersFor(err));
    }
    if (err instanceof z.core.$ZodError) {
      const issues = fieldIssues(err);
      return c.json(body('invalid_input', 'The input is invalid; see details.issues for each field.', { issues }), 400);
    }
    if (err instanceof HTTPException && err.status < 500) {
      return c.json(
        body(STATUS_CODES[err.status] ?? 'http_error', err.message || 'The request was refused.'),
        err.status,
      );
    }
    logger.error('unexpected error', { method: c.req.method, path: c.req.path, error: err });
    return c.json(
      body(
        'internal',
        'Something went wrong on the server; it was logged. Try again, and tell the operator if it persists.',
      ),
      500,
    );
  };
}
