import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { safeEqual, SESSION_COOKIE, type ReviewerAuth } from '../../server/auth.ts';
import type { AppEnv } from '../../server/types.ts';
import { errorPage, signInPage } from '../pages.ts';
import type { Sessions } from '../sessions.ts';
import type { WebContext } from '../web-context.ts';

/** Cookie of the sign-in form's own CSRF token (double submit), before any session exists. */
export const SIGNIN_COOKIE = 'il_signin';

/** A same-site path to go to after sign-in; anything else (other hosts, `//evil`, `/\evil`) becomes `/`. */
export function safeNext(next: unknown): string {
  if (
    typeof next !== 'string' ||
    !/^\/(?![/\\])[^\s\\]*$/.test(next) ||
    next.startsWith('/signin') ||
    next.length > 2000
  )
    return '/';
  return next;
}

/** Sign-in and sign-out forms are small; a larger body is refused with a page, not parsed. */
const smallForm = bodyLimit({
  maxSize: 8 * 1024,
  onError: (c) =>
    c.html(
      errorPage('Too large', 'The form was larger than a sign-in form can be.', {
        href: '/signin',
        label: 'Sign in',
      }),
      413,
    ),
});

/** The sign-in page, with a fresh CSRF token that its short-lived cookie carries too. */
function signInForm(w: WebContext, c: Context, next: string, error: string | undefined, status: 200 | 401 | 403) {
  const token = randomBytes(24).toString('base64url');
  setCookie(c, SIGNIN_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure: w.secure(c),
    maxAge: 30 * 60,
  });
  c.header('Cache-Control', 'no-store');
  return c.html(signInPage({ csrf: token, next, ...(error ? { error } : {}) }), status);
}

/**
 * Sign-in, sign-out. POST /session takes a reviewer token from the form and
 * answers with the `il_session` cookie (HttpOnly, SameSite=Strict, Secure over
 * https). Both forms are guarded against cross-site posts by the Origin header
 * and a CSRF token: the sign-in form's travels in a short-lived cookie (login
 * CSRF), the sign-out form's is the session's.
 */
export function sessionRoutes(w: WebContext, reviewers: ReviewerAuth, sessions: Sessions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const showForm = (c: Context, next: string, error?: string, status: 200 | 401 | 403 = 200) =>
    signInForm(w, c, next, error, status);
  const fromOurPage = (c: Context) => c.req.header('origin') === w.origin(c);

  app.get('/signin', async (c) => {
    const next = safeNext(c.req.query('next'));
    const current = getCookie(c, SESSION_COOKIE);
    if (current && (await sessions.verify(current)).ok) return c.redirect(next, 303);
    return showForm(c, next);
  });

  app.post('/session', smallForm, async (c) => {
    const form = await c.req.parseBody();
    const next = safeNext(form.next);
    const sent = typeof form.csrf === 'string' ? form.csrf : '';
    const expected = getCookie(c, SIGNIN_COOKIE) ?? '';
    if (!fromOurPage(c) || expected === '' || !safeEqual(sent, expected)) {
      return showForm(
        c,
        next,
        'This sign-in form expired or did not come from this site. Enter your token again.',
        403,
      );
    }
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const outcome = token ? await reviewers.verifyToken(token) : ({ ok: false, reason: 'invalid' } as const);
    if (!outcome.ok) {
      return showForm(
        c,
        next,
        outcome.reason === 'revoked'
          ? 'This token was revoked. Ask an operator for a new one.'
          : 'That token is not valid. Check it, or ask an operator for a new one.',
        401,
      );
    }
    const { value, expiresAt } = await sessions.create(outcome.reviewer.id);
    setCookie(c, SESSION_COOKIE, value, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: w.secure(c),
      expires: new Date(expiresAt),
    });
    deleteCookie(c, SIGNIN_COOKIE, { path: '/', secure: w.secure(c) });
    return c.redirect(next, 303);
  });

  app.post('/signout', smallForm, async (c) => {
    const value = getCookie(c, SESSION_COOKIE);
    if (value) {
      const form = await c.req.parseBody();
      const sent = typeof form.csrf === 'string' ? form.csrf : '';
      if (!fromOurPage(c) || !safeEqual(sent, sessions.csrfToken(value))) {
        c.header('Cache-Control', 'no-store');
        return c.html(
          errorPage(
            'Not signed out',
            'The sign-out request did not come from this site’s own page. Use the Sign out button.',
            { href: '/', label: 'Back to the queue' },
          ),
          403,
        );
      }
      await sessions.end(value);
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: w.secure(c) });
    return c.redirect('/signin', 303);
  });

  return app;
}
