import { z } from 'zod';
import { DEFAULT_CHANNEL_TIMEOUT_MS, type Channel } from './channel.ts';
import { postOrThrow } from './http-post.ts';
import type { NotificationMessage } from './message.ts';
import { isHttpUrl, parseOptions } from './options.ts';
import { describeHidden, findHiddenDeep } from '../core/reveal.ts';
import { oneLine, truncate } from './escape.ts';
import { headline, summarizeArgs, type ArgLine } from './summary.ts';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signWebhookBody, TIMESTAMP_HEADER } from './webhook-signature.ts';

/** Options of {@link webhookChannel}. */
export interface WebhookChannelOptions {
  /** Receiver URL (http or https). */
  url: string;
  /** Shared secret the body is signed with; at least 16 characters (e.g. `openssl rand -hex 32`). */
  secret: string;
  /** Channel name (default `webhook`). */
  name?: string;
  /** How long to wait for a 2xx answer (default 5000 ms). */
  timeoutMs?: number;
  /** Clock for the timestamp (default `Date.now`). */
  now?: () => number;
}

/** The JSON body a webhook receives. `sentAt` is covered by the signature: refuse old ones to stop replays. */
export interface WebhookBody {
  schemaVersion: 1;
  type: NotificationMessage['kind'];
  /** Stable across retries: deduplicate on it. */
  deliveryId: string | null;
  /** Epoch ms, equal to the `X-Interlock-Timestamp` header. */
  sentAt: number;
  /** Exactly what the agent proposed: `message.args` keeps the original bytes (the action hash binds them). */
  message: NotificationMessage;
  /**
   * The human-readable part, for receivers that show it to people (chat bots,
   * tickets): hidden characters shown as `⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩`,
   * unescaped (escape for your own format). `hiddenCharacters` names them.
   */
  summary: WebhookSummary;
}

/** The revealed, human-readable part of a {@link WebhookBody}. */
export interface WebhookSummary {
  headline: string;
  reason: string | null;
  args: ArgLine[];
  /** Names of the hidden characters in the arguments, e.g. `U+202E RIGHT-TO-LEFT OVERRIDE`; empty when none. */
  hiddenCharacters: string[];
}

/** The summary of a message: what a person may be shown of it. */
export function webhookSummary(m: NotificationMessage): WebhookSummary {
  const hidden = findHiddenDeep(m.args);
  return {
    headline: headline(m),
    reason: m.reason === null ? null : truncate(oneLine(m.reason), 500),
    args: summarizeArgs(m.args, { maxEntries: 20, maxValueLength: 200 }),
    hiddenCharacters: hidden.length ? describeHidden(hidden).split(', ') : [],
  };
}

const schema = z.object({
  url: z.string().refine(isHttpUrl, 'must be an http(s) URL such as "https://hooks.example.com/interlock"'),
  secret: z.string().min(16, 'must be at least 16 characters; generate one with `openssl rand -hex 32`'),
  name: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().optional(),
  now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function returning epoch ms').optional(),
});

/**
 * POST each message as signed JSON. Headers: `X-Interlock-Signature:
 * sha256=<hex HMAC-SHA256 of the raw body>`, `X-Interlock-Timestamp`,
 * `X-Interlock-Delivery` (the same id on every retry). A non-2xx answer or no
 * answer within `timeoutMs` throws, so the notifier retries.
 * @example
 * const hook = webhookChannel({ url: 'https://ops.example.com/interlock', secret: process.env.HOOK_SECRET! });
 */
export function webhookChannel(options: WebhookChannelOptions): Channel {
  const o = parseOptions(schema, options, 'webhookChannel', 'it needs { url, secret }.');
  const name = o.name ?? 'webhook';
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHANNEL_TIMEOUT_MS;
  const now = o.now ?? Date.now;
  return {
    name,
    async send(message, delivery) {
      const sentAt = now();
      const payload: WebhookBody = {
        schemaVersion: 1,
        type: message.kind,
        deliveryId: delivery?.deliveryId ?? null,
        sentAt,
        message,
        summary: webhookSummary(message),
      };
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': 'interlock-notifier',
        [SIGNATURE_HEADER]: signWebhookBody(body, o.secret),
        [TIMESTAMP_HEADER]: String(sentAt),
      };
      if (delivery) headers[DELIVERY_HEADER] = delivery.deliveryId;
      await postOrThrow({ channel: name, url: o.url, body, headers, timeoutMs });
    },
  };
}
