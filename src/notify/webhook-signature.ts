import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header carrying `sha256=<hex HMAC-SHA256 of the raw body>`. */
export const SIGNATURE_HEADER = 'X-Interlock-Signature';
/** Header carrying the send time in epoch milliseconds (also `sentAt` in the signed body). */
export const TIMESTAMP_HEADER = 'X-Interlock-Timestamp';
/** Header carrying the delivery id, stable across retries: deduplicate on it. */
export const DELIVERY_HEADER = 'X-Interlock-Delivery';

/** The signature header value of `body` under `secret`. */
export function signWebhookBody(body: string | Uint8Array, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * True when `header` is the signature of the raw `body` under `secret`.
 * Compare the bytes you received, before parsing them; the comparison takes
 * the same time whatever the header holds.
 * @example
 * // in a node:http receiver
 * const raw = Buffer.concat(chunks);
 * if (!verifyWebhookSignature(raw, req.headers['x-interlock-signature'], process.env.INTERLOCK_WEBHOOK_SECRET!)) {
 *   res.writeHead(401).end();
 *   return;
 * }
 */
export function verifyWebhookSignature(
  body: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
  secret: string,
): boolean {
  if (typeof header !== 'string' || secret.length === 0) return false;
  const expected = Buffer.from(signWebhookBody(body, secret), 'utf8');
  const given = Buffer.from(header.trim().toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
