import type { Context, MiddlewareHandler } from 'hono';

/**
 * Content Security Policy of every UI response: scripts, styles, images and
 * connections only from this server; no inline script, no plugins, no framing,
 * forms only to this server. Charts are SVG built with DOM calls, so
 * `style-src 'self'` suffices.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/** Headers of UI responses (pages and assets). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** Middleware that sets {@link SECURITY_HEADERS} (and HSTS when `https(c)`) on the response. */
export function securityHeaders(https: (c: Context) => boolean): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
    if (https(c)) c.header('Strict-Transport-Security', 'max-age=31536000');
  };
}
