import { DeliveryError } from './delivery-error.ts';

/** One HTTP POST of a channel. */
export interface PostRequest {
  /** Channel name, for error messages. */
  channel: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * POST `body` and resolve on a 2xx answer. Non-2xx, network errors and
 * timeouts throw a {@link DeliveryError} naming only the URL's origin (a
 * webhook URL's path is often its secret).
 */
export async function postOrThrow(req: PostRequest): Promise<void> {
  const where = new URL(req.url).origin;
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: 'POST',
      body: req.body,
      headers: req.headers,
      signal: AbortSignal.timeout(req.timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const timedOut = err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new DeliveryError(
      req.channel,
      timedOut
        ? `${where} did not answer within ${req.timeoutMs} ms; it will be retried.`
        : `could not reach ${where}: ${describe(err)}. Check the URL and that the receiver is up.`,
      { cause: err },
    );
  }
  // Read the answer so the connection is released; keep a little of it for the error.
  let text = '';
  try {
    text = await res.text();
  } catch {
    // The status is what matters; a broken body does not change it.
  }
  if (res.status < 200 || res.status > 299) {
    const snippet = text.trim().slice(0, 200).replace(/\s+/g, ' ');
    throw new DeliveryError(req.channel, `${where} answered HTTP ${res.status}${snippet ? ` (${snippet})` : ''}.`, {
      status: res.status,
    });
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.message}${cause}`;
  }
  return String(err);
}
