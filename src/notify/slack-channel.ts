import { z } from 'zod';
import { DEFAULT_CHANNEL_TIMEOUT_MS, type Channel } from './channel.ts';
import { postOrThrow } from './http-post.ts';
import { isHttpUrl, parseOptions } from './options.ts';
import { slackMessage } from './slack-message.ts';

/** Options of {@link slackChannel}. */
export interface SlackChannelOptions {
  /** The incoming webhook URL Slack gave you (`https://hooks.slack.com/services/…`); keep it secret. */
  webhookUrl: string;
  /** Channel name (default `slack`). */
  name?: string;
  /** How long to wait for Slack (default 5000 ms). */
  timeoutMs?: number;
}

const schema = z.object({
  webhookUrl: z
    .string()
    .refine(
      isHttpUrl,
      'must be the incoming webhook URL Slack gave you, such as "https://hooks.slack.com/services/T000/B000/XXXX"',
    ),
  name: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().optional(),
});

/**
 * Post a Block Kit message to a Slack incoming webhook: title, tool, amount,
 * reason, required role, approvals, expiry and a Review button linking to the
 * review page. Untrusted text is escaped (see {@link slackMessage}).
 * @example
 * const slack = slackChannel({ webhookUrl: process.env.SLACK_WEBHOOK_URL! });
 */
export function slackChannel(options: SlackChannelOptions): Channel {
  const o = parseOptions(schema, options, 'slackChannel', 'it needs { webhookUrl } (Slack app → Incoming Webhooks).');
  const name = o.name ?? 'slack';
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHANNEL_TIMEOUT_MS;
  return {
    name,
    async send(message) {
      await postOrThrow({
        channel: name,
        url: o.webhookUrl,
        body: JSON.stringify(slackMessage(message)),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        timeoutMs,
      });
    },
  };
}
