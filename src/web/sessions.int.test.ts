import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../core/index.ts';
import { createApp } from '../server/app.ts';
import { hashToken, storeReviewerAuth } from '../server/auth.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';
import { allBackends, sqliteBackend } from '../testing/backends.ts';
import { CONTENT_SECURITY_POLICY } from './security-headers.ts';
import { createSessions } from './sessions.ts';
import { postSignIn, setCookie, signIn } from '../../test/support/web-helpers.ts';
import { createWebUi } from './web-ui.ts';

type ErrorBody = { error: { code: string; message: string } };

for (const backend of allBackends()) {
  describe(`web sessions and CSRF on ${backend.name}`, () => {
    let f: ServerFixture;
    before(async () => {
      f = await startServerFixture(backend, { ui: createWebUi() });
    });
    after(async () => {
      assert.deepEqual(f.logged, [], 'no unexpected server errors');
      await f.close();
    });

    const get = (path: string, cookie?: string) =>
      fetch(f.url + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    const decide = (id: string, s: { cookie: string; csrf?: string }, body: unknown, origin: string | null = f.url) =>
      fetch(`${f.url}/api/v1/approvals/${id}/decision`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: s.cookie,
          ...(origin ? { origin } : {}),
          ...(s.csrf ? { 'x-csrf-token': s.csrf } : {}),
        },
        body: JSON.stringify(body),
      });

    it('pages redirect to sign-in and come back; every UI response carries the security headers', async () => {
      const res = await get('/approvals/apr_x?tab=1');
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/signin?next=%2Fapprovals%2Fapr_x%3Ftab%3D1');
      const signin = await get('/signin?next=%2Fapprovals%2Fapr_x');
      assert.equal(signin.status, 200);
      for (const r of [res, signin]) {
        assert.equal(r.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
        assert.match(CONTENT_SECURITY_POLICY, /script-src 'self'/);
        assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval/);
        assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
        assert.equal(r.headers.get('x-frame-options'), 'DENY');
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(r.headers.get('referrer-policy'), 'same-origin');
      }
      assert.equal(signin.headers.get('cache-control'), 'no-store');
      const html = await signin.text();
      assert.match(html, /<form method="post" action="\/session"/);
      assert.doesNotMatch(html, /<script(?! type="module" src="\/ui\/js\/)/, 'no inline script');
      assert.match(html, /name="next" value="\/approvals\/apr_x"/);
    });

    it('signs in with a reviewer token: an HttpOnly, SameSite=Strict session cookie; only its hash is stored', async () => {
      const res = await postSignIn(f.url, f.tokens.alice, { next: '/threads/t-1' });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/threads/t-1');
      const c = setCookie(res, 'il_session');
      assert.ok(c, 'session cookie set');
      assert.match(c.value, /^ils_[A-Za-z0-9_-]{43}$/);
      assert.match(c.attrs, /HttpOnly/);
      assert.match(c.attrs, /SameSite=Strict/);
      assert.match(c.attrs, /Path=\//);
      assert.doesNotMatch(c.attrs, /Secure/, 'not Secure over plain http');
      assert.ok(await f.store.getSession(hashToken(c.value)), 'stored by hash');
      assert.equal(await f.store.getSession(c.value), undefined, 'never by value');
      assert.match(
        setCookie(res, 'il_signin')?.attrs ?? '',
        /Max-Age=0|Expires=Thu, 01 Jan 1970/,
        'the sign-in form token is dropped',
      );

      const page = await get('/', `il_session=${c.value}`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<meta name="csrf-token" content="[A-Za-z0-9_-]{43}">/);
      assert.match(html, /data-reviewer-name="alice"/);
      assert.equal(page.headers.get('cache-control'), 'no-store');
    });

    it('refuses a bad or revoked token, a foreign origin, and a missing form token; redirects only within the site', async () => {
      const bad = await postSignIn(f.url, `il_${'A'.repeat(43)}`);
      assert.equal(bad.status, 401);
      assert.equal(setCookie(bad, 'il_session'), undefined);
      assert.match(await bad.text(), /That token is not valid/);
      const revoked = await postSignIn(f.url, f.tokens.revoked);
      assert.equal(revoked.status, 401);
      assert.match(await revoked.text(), /revoked/);
      const foreign = await postSignIn(f.url, f.tokens.alice, { origin: 'https://evil.example' });
      assert.equal(foreign.status, 403);
      assert.equal(setCookie(foreign, 'il_session'), undefined);
      const noForm = await fetch(`${f.url}/session`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: f.url },
        body: new URLSearchParams({ token: f.tokens.alice, csrf: 'guess' }).toString(),
      });
      assert.equal(noForm.status, 403, 'login CSRF: the form token must match its cookie');
      assert.equal(setCookie(noForm, 'il_session'), undefined);
      for (const next of ['//evil.example/x', '/\\evil.example', 'https://evil.example', '/signin']) {
        const r = await postSignIn(f.url, f.tokens.alice, { next });
        assert.equal(r.headers.get('location'), '/', next);
      }
    });

    it('a cookie write needs the same Origin and the CSRF token; a bearer write needs neither', async () => {
      const s = await signIn(f.url, f.tokens.alice);
      const req = await f.pauseRefund(900);
      const noToken = await decide(req.id, { cookie: s.cookie }, { type: 'approve', ...guard(req) });
      assert.equal(noToken.status, 403);
      assert.equal(((await noToken.json()) as ErrorBody).error.code, 'csrf_failed');
      const wrongToken = await decide(
        req.id,
        { cookie: s.cookie, csrf: `${s.csrf.slice(0, -2)}xx` },
        { type: 'approve', ...guard(req) },
      );
      assert.equal(wrongToken.status, 403);
      const otherSession = await signIn(f.url, f.tokens.bob);
      const swapped = await decide(
        req.id,
        { cookie: s.cookie, csrf: otherSession.csrf },
        { type: 'approve', ...guard(req) },
      );
      assert.equal(swapped.status, 403, 'a token belongs to its session');
      const foreign = await decide(req.id, s, { type: 'approve', ...guard(req) }, 'https://evil.example');
      assert.equal(foreign.status, 403);
      const noOrigin = await decide(req.id, s, { type: 'approve', ...guard(req) }, null);
      assert.equal(noOrigin.status, 403);
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending', 'nothing refused was decided');

      const read = await fetch(`${f.url}/api/v1/approvals/${req.id}`, { headers: { cookie: s.cookie } });
      assert.equal(read.status, 200, 'reads need no CSRF token');
      const ok = await decide(req.id, s, { type: 'approve', ...guard(req) });
      assert.equal(ok.status, 200);
      const decided = await f.interlock.getRequestOrThrow(req.id);
      assert.equal(decided.status, 'authorized');
      assert.equal(decided.resolution?.by, f.ids.alice, 'the session is the reviewer');

      const other = await f.pauseRefund(901);
      const bearer = await f.call(`/api/v1/approvals/${other.id}/decision`, 'bob', {
        body: { type: 'approve', ...guard(other) },
      });
      assert.equal(bearer.status, 200);
    });

    it('signs out with the page token only; afterwards the cookie is refused', async () => {
      const s = await signIn(f.url, f.tokens.bob);
      const forged = await fetch(`${f.url}/signout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: s.cookie, origin: f.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'csrf=nope',
      });
      assert.equal(forged.status, 403);
      assert.equal(
        (await fetch(`${f.url}/api/v1/approvals`, { headers: { cookie: s.cookie } })).status,
        200,
        'still signed in',
      );
      const out = await fetch(`${f.url}/signout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: s.cookie, origin: f.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: s.csrf }).toString(),
      });
      assert.equal(out.status, 303);
      assert.equal(out.headers.get('location'), '/signin');
      assert.match(setCookie(out, 'il_session')?.attrs ?? '', /Max-Age=0|Expires=Thu, 01 Jan 1970/);
      assert.equal(await f.store.getSession(hashToken(s.value)), undefined);
      const api = await fetch(`${f.url}/api/v1/approvals`, { headers: { cookie: s.cookie } });
      assert.equal(api.status, 401);
      assert.match(((await api.json()) as ErrorBody).error.message, /sign in again/);
      assert.equal((await get('/', s.cookie)).status, 303);
    });

    it('a session ends when it expires and when its reviewer is revoked', async () => {
      const s = await signIn(f.url, f.tokens.carol);
      assert.equal((await fetch(`${f.url}/api/v1/approvals`, { headers: { cookie: s.cookie } })).status, 200);
      f.clock.advance(12 * 3_600_000 + 1);
      assert.equal(
        (await fetch(`${f.url}/api/v1/approvals`, { headers: { cookie: s.cookie } })).status,
        401,
        'expired after 12 h',
      );
      const page = await get('/', s.cookie);
      assert.equal(page.status, 303);
      assert.match(
        setCookie(page, 'il_session')?.attrs ?? '',
        /Max-Age=0|Expires=Thu, 01 Jan 1970/,
        'a dead cookie is cleared',
      );

      const again = await signIn(f.url, f.tokens.carol);
      await f.store.revokeReviewer(f.ids.carol);
      const revoked = await fetch(`${f.url}/api/v1/approvals`, { headers: { cookie: again.cookie } });
      assert.equal(revoked.status, 401);
      assert.equal(((await revoked.json()) as ErrorBody).error.code, 'token_revoked');
    });

    it('serves the browser modules as JavaScript with revalidation, and nothing outside its folders', async () => {
      const js = await get('/ui/js/review-page.ts');
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.equal(js.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
      const body = await js.text();
      assert.match(body, /import \{[^}]*\} from '\.\/api\.ts'/);
      assert.doesNotMatch(body, /: Promise<void>|: ReviewPacket \| undefined/, 'types are erased');
      const etag = js.headers.get('etag')!;
      assert.equal((await fetch(`${f.url}/ui/js/review-page.ts`, { headers: { 'if-none-match': etag } })).status, 304);
      assert.match((await get('/ui/app.css')).headers.get('content-type') ?? '', /^text\/css/);
      for (const path of [
        '/ui/js/..%2Fsessions.ts',
        '/ui/js/nope.ts',
        '/ui/js/tsconfig.json',
        '/ui/..%2Fweb-ui.ts',
        '/ui/js/types.test.ts',
      ]) {
        assert.equal((await get(path)).status, 404, path);
      }
    });
  });
}

describe('web sessions behind https', () => {
  it('marks cookies Secure and checks the Origin against the public baseUrl', async () => {
    const f = await startServerFixture(sqliteBackend(), { ui: createWebUi(), baseUrl: 'https://reviews.example.com' });
    try {
      const local = await postSignIn(f.url, f.tokens.alice);
      assert.equal(local.status, 403, 'the server’s own address is not the public origin');
      const res = await postSignIn(f.url, f.tokens.alice, { origin: 'https://reviews.example.com' });
      assert.equal(res.status, 303);
      assert.match(setCookie(res, 'il_session')?.attrs ?? '', /Secure/);
      assert.equal(res.headers.get('strict-transport-security'), 'max-age=31536000');
    } finally {
      await f.close();
    }
  });
});

describe('session options', () => {
  it('createApp refuses session verification without a CSRF token function', () => {
    const auth = storeReviewerAuth({ getReviewerByTokenHash: async () => undefined });
    const interlock = { on: () => () => undefined, store: {}, context: { tools: new Map() } } as unknown as Parameters<
      typeof createApp
    >[0]['interlock'];
    assert.throws(
      () =>
        createApp({ interlock, reviewers: { ...auth, verifySession: async () => ({ ok: false, reason: 'invalid' }) } }),
      ConfigError,
    );
  });

  it('refuses a session lifetime under a minute', () => {
    assert.throws(() => createSessions({} as Parameters<typeof createSessions>[0], { ttlMs: 1000 }), /at least 60000/);
  });
});
