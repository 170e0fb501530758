/** Helpers of the web UI's tests: sign in over HTTP as a browser would. Not part of the API. */

/** The value of cookie `name` in a response's Set-Cookie headers, with its attributes. */
export function setCookie(res: Response, name: string): { value: string; attrs: string } | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair = '', ...attrs] = line.split(';').map((s) => s.trim());
    const at = pair.indexOf('=');
    if (pair.slice(0, at) === name) return { value: decodeURIComponent(pair.slice(at + 1)), attrs: attrs.join('; ') };
  }
  return undefined;
}

/** The hidden CSRF field of a form, or the csrf-token meta of a page. */
export function csrfIn(html: string): string {
  const m = /name="csrf(?:-token)?" (?:value|content)="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF token in the page');
  return m[1]!;
}

/** A browser-like session: the cookie header to send, and the page's CSRF token. */
export interface BrowserSession {
  cookie: string;
  csrf: string;
  value: string;
}

/** Load the sign-in form and post `token` the way the browser does. */
export async function postSignIn(
  url: string,
  token: string,
  opts: { next?: string; origin?: string } = {},
): Promise<Response> {
  const form = await fetch(`${url}/signin`);
  const signin = setCookie(form, 'il_signin');
  if (!signin) throw new Error('GET /signin did not set il_signin');
  const csrf = csrfIn(await form.text());
  return fetch(`${url}/session`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `il_signin=${signin.value}`,
      origin: opts.origin ?? url,
    },
    body: new URLSearchParams({ token, csrf, next: opts.next ?? '/' }).toString(),
  });
}

/** Sign in with `token`; throws unless a session cookie comes back. */
export async function signIn(url: string, token: string): Promise<BrowserSession> {
  const res = await postSignIn(url, token);
  const session = setCookie(res, 'il_session');
  if (res.status !== 303 || !session) throw new Error(`sign-in failed: ${res.status}`);
  const cookie = `il_session=${session.value}`;
  const page = await fetch(`${url}/`, { headers: { cookie } });
  return { cookie, csrf: csrfIn(await page.text()), value: session.value };
}
