import type { Context } from 'hono';

/** What the UI's routes need to know about where they are served. */
export interface WebContext {
  /** This server's origin as browsers see it: `baseUrl`'s, else the request's. */
  origin(c: Context): string;
  /** Whether cookies must be `Secure` (served over https). */
  secure(c: Context): boolean;
}

/** The {@link WebContext} for a server with an optional public `baseUrl`. */
export function webContext(baseUrl: string | undefined): WebContext {
  const base = baseUrl ? new URL(baseUrl) : undefined;
  return {
    origin: (c) => base?.origin ?? new URL(c.req.url).origin,
    secure: (c) => (base ? base.protocol === 'https:' : new URL(c.req.url).protocol === 'https:'),
  };
}
