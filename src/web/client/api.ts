/** The JSON API as the browser calls it: session cookie, plus the CSRF token on writes. */

/** A refusal of the API: HTTP status, stable code, message, details. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
  /** Field issues of a 400 (`details.issues`). */
  get issues(): Array<{ path: string; message: string }> {
    const i = this.details.issues;
    return Array.isArray(i) ? (i as Array<{ path: string; message: string }>) : [];
  }
}

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** Back to sign-in, returning here afterwards. */
export function signInAgain(): void {
  window.location.assign(`/signin?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
}

/**
 * Call the API at `path` (e.g. `/api/v1/approvals`). A JSON `body` makes it a
 * POST. Non-2xx answers throw {@link ApiError}; a 401 (session ended) goes
 * back to the sign-in page.
 */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers = { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': csrf };
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached. Check your connection; nothing was sent twice.');
  }
  const text = await res.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy error page): reported below by status.
  }
  if (res.status === 401) {
    signInAgain();
    throw new ApiError(401, 'unauthorized', 'Your session ended; sign in again.');
  }
  if (!res.ok) {
    const e = (data as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)
      ?.error;
    throw new ApiError(
      res.status,
      e?.code ?? 'http_error',
      e?.message ?? `The server answered ${res.status}.`,
      e?.details ?? {},
    );
  }
  return data as T;
}
