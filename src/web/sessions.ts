import { createHmac, randomBytes } from 'node:crypto';
import { ConfigError } from '../core/index.ts';
import { hashToken, type AuthOutcome, type ReviewerAuth } from '../server/auth.ts';
import type { StoreTx } from '../store/types.ts';

/** Default lifetime of a browser session: a working day. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const PREFIX = 'ils_';
// 32 random bytes in base64url are 43 characters.
const SHAPE = /^ils_[A-Za-z0-9_-]{43}$/;

/** Options of {@link createSessions}. */
export interface SessionOptions {
  /** How long a session lasts after sign-in (absolute, not sliding). Default 12 h. */
  ttlMs?: number;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
}

/**
 * Server-side browser sessions. The cookie holds 256 random bits; the store
 * keeps only their SHA-256, so sign-out and reviewer revocation end a session
 * at once, on every process sharing the database, with no secret to manage.
 */
export interface Sessions {
  /** Start a session for a reviewer; returns the cookie value (shown once) and its expiry. */
  create(reviewerId: string): Promise<{ value: string; expiresAt: number }>;
  /** The reviewer behind a cookie value: refused when unknown, expired, or the reviewer was revoked. */
  verify(value: string): Promise<AuthOutcome>;
  /** End the session (sign-out). Unknown values are ignored. */
  end(value: string): Promise<void>;
  /**
   * The session's CSRF token: an HMAC keyed by the cookie value, so it needs no
   * storage, differs per session, and cannot be derived from what the store keeps.
   */
  csrfToken(value: string): string;
  /** `reviewers` plus `verifySession` and `csrfToken` for this store. */
  authWith(reviewers: ReviewerAuth): ReviewerAuth;
}

type SessionStore = Pick<
  StoreTx,
  'insertSession' | 'getSession' | 'deleteSession' | 'deleteExpiredSessions' | 'getReviewer'
>;

/**
 * Sessions over the store's `il_sessions` table.
 * @example
 * const sessions = createSessions(store);
 * const { value } = await sessions.create(reviewer.id); // set as the il_session cookie
 * await sessions.verify(value);                          // { ok: true, reviewer }
 */
export function createSessions(store: SessionStore, options: SessionOptions = {}): Sessions {
  const ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs < 60_000)
    throw new ConfigError(`Session "ttlMs" must be at least 60000 (one minute), not ${String(ttlMs)}.`);
  const now = options.now ?? Date.now;
  const sessions: Sessions = {
    async create(reviewerId) {
      const at = now();
      // Expired rows go on the way in: sign-ins are rare, so this costs nothing noticeable.
      await store.deleteExpiredSessions(at);
      const value = PREFIX + randomBytes(32).toString('base64url');
      const expiresAt = at + ttlMs;
      await store.insertSession({ idHash: hashToken(value), reviewerId, createdAt: at, expiresAt });
      return { value, expiresAt };
    },
    async verify(value) {
      // A value that cannot be one of ours is refused without a database round-trip.
      if (!SHAPE.test(value)) return { ok: false, reason: 'invalid' };
      const row = await store.getSession(hashToken(value));
      if (!row || row.expiresAt <= now()) return { ok: false, reason: 'invalid' };
      const reviewer = await store.getReviewer(row.reviewerId);
      if (!reviewer) return { ok: false, reason: 'invalid' };
      if (reviewer.revoked) return { ok: false, reason: 'revoked' };
      return { ok: true, reviewer: { id: reviewer.id, name: reviewer.name, roles: reviewer.roles } };
    },
    async end(value) {
      if (SHAPE.test(value)) await store.deleteSession(hashToken(value));
    },
    csrfToken(value) {
      return createHmac('sha256', value).update('interlock csrf v1').digest('base64url');
    },
    authWith(reviewers) {
      return {
        verifyToken: (token) => reviewers.verifyToken(token),
        verifySession: (value) => sessions.verify(value),
        csrfToken: (value) => sessions.csrfToken(value),
      };
    },
  };
  return sessions;
}
