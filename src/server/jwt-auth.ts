import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import { ConfigError } from '../core/index.ts';
import type { AuthOutcome, ReviewerAuth } from './auth.ts';

/** Options of {@link withJwtAuth}. */
export interface JwtAuthOptions {
  /** Expected `iss`. */
  issuer: string;
  /** Expected `aud`. */
  audience: string;
  /** URL of the identity provider's JSON Web Key Set. */
  jwksUrl: string;
  /** Claim holding the reviewer's roles: an array of strings or a space-separated string (default `roles`). */
  rolesClaim?: string;
  /** Claim holding a display name (default `name`, else `sub`). */
  nameClaim?: string;
  /** Accepted clock skew in seconds (default 30). */
  clockToleranceSec?: number;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function roles(payload: JWTPayload, claim: string): string[] {
  const v = payload[claim];
  if (Array.isArray(v)) return v.filter((r): r is string => typeof r === 'string' && r.length > 0);
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  return [];
}

/**
 * Accept JSON Web Tokens from an identity provider (checked against its JWKS,
 * issuer and audience) besides Interlock's own API tokens, which `base` keeps
 * checking. The reviewer id is `jwt:<sub>`; roles come from `rolesClaim`.
 * @example
 * createApp({ interlock, reviewers: withJwtAuth(storeReviewerAuth(store), {
 *   issuer: 'https://id.example.com/', audience: 'interlock', jwksUrl: 'https://id.example.com/.well-known/jwks.json' }) });
 */
export function withJwtAuth(base: ReviewerAuth, o: JwtAuthOptions): ReviewerAuth {
  for (const k of ['issuer', 'audience', 'jwksUrl'] as const) {
    if (typeof o?.[k] !== 'string' || o[k] === '')
      throw new ConfigError(`JWT auth needs "${k}" (INTERLOCK_JWT_${k === 'jwksUrl' ? 'JWKS_URL' : k.toUpperCase()}).`);
  }
  if (!URL.canParse(o.jwksUrl)) throw new ConfigError(`JWT auth "jwksUrl" must be a URL, not "${o.jwksUrl}".`);
  const jwks = createRemoteJWKSet(new URL(o.jwksUrl));
  const rolesClaim = o.rolesClaim ?? 'roles';
  const nameClaim = o.nameClaim ?? 'name';
  return {
    ...base,
    async verifyToken(token): Promise<AuthOutcome> {
      if (!JWT_SHAPE.test(token)) return base.verifyToken(token);
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: o.issuer,
          audience: o.audience,
          clockTolerance: o.clockToleranceSec ?? 30,
        });
        if (!payload.sub) return { ok: false, reason: 'invalid' };
        const name = typeof payload[nameClaim] === 'string' ? payload[nameClaim] : payload.sub;
        return { ok: true, reviewer: { id: `jwt:${payload.sub}`, name, roles: roles(payload, rolesClaim) } };
      } catch (err) {
        // A bad signature, an expired token, a wrong issuer or audience: all are "not valid".
        if (err instanceof joseErrors.JOSEError) return { ok: false, reason: 'invalid' };
        throw err;
      }
    },
  };
}

/** JWT options from `INTERLOCK_JWT_ISSUER`, `INTERLOCK_JWT_AUDIENCE`, `INTERLOCK_JWT_JWKS_URL`, `INTERLOCK_JWT_ROLES_CLAIM`; undefined when unset. */
export function jwtOptionsFromEnv(env: NodeJS.ProcessEnv): JwtAuthOptions | undefined {
  if (!env.INTERLOCK_JWT_ISSUER && !env.INTERLOCK_JWT_JWKS_URL) return undefined;
  return {
    issuer: env.INTERLOCK_JWT_ISSUER ?? '',
    audience: env.INTERLOCK_JWT_AUDIENCE ?? '',
    jwksUrl: env.INTERLOCK_JWT_JWKS_URL ?? '',
    ...(env.INTERLOCK_JWT_ROLES_CLAIM ? { rolesClaim: env.INTERLOCK_JWT_ROLES_CLAIM } : {}),
  };
}
