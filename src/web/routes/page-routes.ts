import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { OPERATOR_ROLE, SESSION_COOKIE, type Principal } from '../../server/auth.ts';
import type { AppEnv } from '../../server/types.ts';
import type { Html } from '../html.ts';
import {
  attentionBody,
  batchBody,
  metricsBody,
  page,
  queueBody,
  reviewBody,
  threadBody,
  type PageKey,
} from '../pages.ts';
import type { Sessions } from '../sessions.ts';
import type { WebContext } from '../web-context.ts';

/**
 * The signed-in pages. Without a valid session they redirect to /signin and
 * come back after it. Each answers with its shell; the data comes from the API.
 */
export function pageRoutes(w: WebContext, sessions: Sessions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const signedIn: MiddlewareHandler<AppEnv> = async (c, next) => {
    const value = getCookie(c, SESSION_COOKIE);
    const outcome = value ? await sessions.verify(value) : undefined;
    if (!outcome?.ok) {
      if (value) deleteCookie(c, SESSION_COOKIE, { path: '/', secure: w.secure(c) });
      const url = new URL(c.req.url);
      return c.redirect(`/signin?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
    }
    const r = outcome.reviewer;
    const principal: Principal = {
      id: r.id,
      name: r.name,
      roles: r.roles,
      operator: r.roles.includes(OPERATOR_ROLE),
      via: 'session',
    };
    c.set('principal', principal);
    await next();
  };

  const render = (
    key: PageKey,
    title: string,
    script: string,
    body: () => Html,
    data?: (params: Record<string, string>) => Record<string, string>,
  ) => {
    return (c: Context<AppEnv>) => {
      c.header('Cache-Control', 'no-store');
      return c.html(
        page({
          key,
          title,
          script,
          principal: c.var.principal,
          csrf: sessions.csrfToken(getCookie(c, SESSION_COOKIE)!),
          body: body(),
          ...(data ? { data: data(c.req.param()) } : {}),
        }),
      );
    };
  };

  app.get('/', signedIn, render('queue', 'Queue', 'queue-page.ts', queueBody));
  app.get(
    '/approvals/:id',
    signedIn,
    render('review', 'Review', 'review-page.ts', reviewBody, (p) => ({ id: p.id ?? '' })),
  );
  app.get(
    '/threads/:id',
    signedIn,
    render('thread', 'Thread', 'thread-page.ts', threadBody, (p) => ({ id: p.id ?? '' })),
  );
  app.get('/metrics-dashboard', signedIn, render('metrics', 'Metrics', 'dashboard-page.ts', metricsBody));
  app.get('/batch', signedIn, render('batch', 'Batch review', 'batch-page.ts', batchBody));
  app.get('/attention', signedIn, render('attention', 'Needs attention', 'attention-page.ts', attentionBody));
  return app;
}
