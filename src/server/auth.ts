import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import {
  ConfigError,
  ForbiddenError,
  InterlockUsageError,
  newId,
  ValidationError,
  type Reviewer,
} from '../core/index.ts';
import type { ReviewerRow, StoreTx } from '../store/types.ts';
import { UnauthorizedError } from './errors.ts';
import type { AppEnv, Principal } from './types.ts';

/** Role that reads everything (queues of every role, audit, verification) and starts or aborts threads. */
export const OPERATOR_ROLE = 'operator';

/** Name of the cookie a browser session travels in (sessions are issued by the web UI). */
export const SESSION_COOKIE = 'il_session';

/** Header in which a cookie-authenticated write carries the session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

/** A write made with a session cookie did not prove it came from this server's own pages. */
export class CsrfError extends InterlockUsageError {
  constructor(message: string) {
    super('csrf_failed', message);
  }
}

const TOKEN_PREFIX = 'il_';
// 32 random bytes in base64url are 43 characters.
const TOKEN_SHAPE = /^il_[A-Za-z0-9_-]{43}$/;

export type { Principal } from './types.ts';

/** What checking a credential found. */
export type AuthOutcome =
  | { ok: true; reviewer: Reviewer & { name: string } }
  | { ok: false; reason: 'invalid' | 'revoked'; /** Whose revoked credential it was. */ reviewerId?: string };

/**
 * Turns credentials into reviewers. The default checks API tokens against the
 * store ({@link storeReviewerAuth}); the web UI adds `verifySession` for its cookie.
 */
export interface ReviewerAuth {
  verifyToken(token: string): Promise<AuthOutcome>;
  /** Check the value of the `il_session` cookie. Without it, cookies are ignored. */
  verifySession?(session: string): Promise<AuthOutcome>;
  /**
   * The CSRF token that writes made with the session `session` must carry in
   * the `X-CSRF-Token` header. Required with `verifySession`.
   */
  csrfToken?(session: string): string;
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The SHA-256 of a token, hex: the only form in which a token is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Register a reviewer and return their API token. The token is shown once:
 * only its SHA-256 is stored.
 * @example
 * const { reviewer, token } = await createReviewer(store, { name: 'Alice', roles: ['supervisor'] });
 * // give `token` to Alice; she sends `Authorization: Bearer <token>`
 */
export async function createReviewer(
  store: Pick<StoreTx, 'insertReviewer'>,
  opts: { name: string; roles: readonly string[]; id?: string; now?: number },
): Promise<{ reviewer: ReviewerRow; token: string }> {
  const issues = [];
  if (typeof opts?.name !== 'string' || opts.name.trim() === '')
    issues.push({ path: 'name', message: 'a non-empty name is required' });
  if (
    !Array.isArray(opts?.roles) ||
    opts.roles.length === 0 ||
    opts.roles.some((r) => typeof r !== 'string' || r.trim() === '')
  ) {
    issues.push({ path: 'roles', message: 'at least one non-empty role is required, e.g. ["supervisor"]' });
  }
  if (issues.length > 0)
    throw new ValidationError('createReviewer needs { name, roles }: a name and at least one role.', issues);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const reviewer: ReviewerRow = {
    id: opts.id ?? newId<string>('rev'),
    name: opts.name.trim(),
    roles: [...new Set(opts.roles.map((r) => r.trim()))],
    tokenHash: hashToken(token),
    revoked: false,
    createdAt: opts.now ?? Date.now(),
  };
  await store.insertReviewer(reviewer);
  return { reviewer, token };
}

/** API tokens checked against the reviewers table, by hash. */
export function storeReviewerAuth(store: Pick<StoreTx, 'getReviewerByTokenHash'>): ReviewerAuth {
  return {
    async verifyToken(token) {
      // A token that cannot be one of ours is refused without a database round-trip.
      if (!TOKEN_SHAPE.test(token)) return { ok: false, reason: 'invalid' };
      const hash = hashToken(token);
      const row = await store.getReviewerByTokenHash(hash);
      // The lookup is by hash; the comparison guards a backend that matched loosely, in constant time.
      if (
        !row ||
        row.tokenHash.length !== hash.length ||
        !timingSafeEqual(Buffer.from(row.tokenHash), Buffer.from(hash))
      )
        return { ok: false, reason: 'invalid' };
      if (row.revoked) return { ok: false, reason: 'revoked', reviewerId: row.id };
      return { ok: true, reviewer: { id: row.id, name: row.name, roles: row.roles } };
    },
  };
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  if (!m) throw new UnauthorizedError('unauthorized', 'The Authorization header must be "Bearer <token>".');
  return m[1];
}

function refuse(outcome: Extract<AuthOutcome, { ok: false }>, via: Principal['via']): never {
  if (outcome.reason === 'revoked')
    throw new UnauthorizedError(
      'token_revoked',
      'This token was revoked; ask an operator for a new one.',
      outcome.reviewerId,
    );
  throw new UnauthorizedError(
    'unauthorized',
    via === 'bearer'
      ? 'The token is not valid; check it, or ask an operator for a new one.'
      : 'The session is not valid or has ended; sign in again.',
  );
}

/**
 * Authenticate every request it guards: `Authorization: Bearer <token>` first,
 * else the `il_session` cookie when the auth knows sessions. Tokens in the query
 * string are refused by design: they end up in logs and browser history.
 * A cookie-authenticated write must come from this server's own origin
 * (`origin`, else the request URL's) and carry the session's CSRF token in
 * `X-CSRF-Token`, so another site cannot post with it (CSRF).
 */
export function authenticate(auth: ReviewerAuth, origin?: string): MiddlewareHandler<AppEnv> {
  if (auth.verifySession && !auth.csrfToken) {
    throw new ConfigError(
      'A ReviewerAuth with "verifySession" also needs "csrfToken(session)": cookie-authenticated writes must be protected against cross-site requests.',
    );
  }
  return async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    let principal: Principal | undefined;
    if (token !== undefined) {
      const outcome = await auth.verifyToken(token);
      if (!outcome.ok) refuse(outcome, 'bearer');
      principal = toPrincipal(outcome.reviewer, 'bearer');
    } else if (auth.verifySession) {
      const session = getCookie(c, SESSION_COOKIE);
      if (session) {
        const outcome = await auth.verifySession(session);
        if (!outcome.ok) refuse(outcome, 'session');
        if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method))
          checkCsrf(
            c.req.header('origin'),
            c.req.header(CSRF_HEADER),
            origin ?? new URL(c.req.url).origin,
            auth.csrfToken!(session),
          );
        principal = toPrincipal(outcome.reviewer, 'session');
      }
    }
    if (!principal)
      throw new UnauthorizedError(
        'unauthorized',
        'Authentication required: send "Authorization: Bearer <token>". Ask an operator for a token.',
      );
    c.set('principal', principal);
    await next();
  };
}

/**
 * Both defences against cross-site writes: the browser-set Origin must be ours
 * (SameSite=Strict already keeps the cookie off most cross-site requests), and
 * the request must carry the session's CSRF token, which another site cannot read.
 */
export function checkCsrf(
  requestOrigin: string | undefined,
  sent: string | undefined,
  ownOrigin: string,
  expected: string,
): void {
  if (requestOrigin !== ownOrigin) {
    throw new CsrfError(
      "A write with a session cookie must come from this server's own pages (Origin header mismatch). Reload the page and try again.",
    );
  }
  if (sent === undefined || !safeEqual(sent, expected)) {
    throw new CsrfError(
      "A write with a session cookie must carry the page's CSRF token (X-CSRF-Token). Reload the page and try again.",
    );
  }
}

function toPrincipal(r: Reviewer & { name: string }, via: Principal['via']): Principal {
  return { id: r.id, name: r.name, roles: r.roles, operator: r.roles.includes(OPERATOR_ROLE), via };
}

/** May `p` see requests that need `role`? Operators see all; others see their roles'. */
export function canSeeRole(p: Principal, role: string): boolean {
  return p.operator || p.roles.includes(role);
}

/** Refuse callers without the operator role. */
export function requireOperator(p: Principal, what: string): void {
  if (!p.operator)
    throw new ForbiddenError('forbidden_role', `Only reviewers with the "${OPERATOR_ROLE}" role may ${what}.`, {
      requiredRole: OPERATOR_ROLE,
    });
}
