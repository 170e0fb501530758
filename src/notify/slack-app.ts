import { z } from 'zod';
import type { Interlock } from '../engine/index.ts';
import type { Channel } from './channel.ts';
import { isHttpUrl, parseOptions } from './options.ts';
import { handleSlackInteraction, type SlackInteraction } from './slack-interactivity.ts';
import {
  keepSlackMessagesCurrent,
  refreshSlackMessages,
  slackAppChannel,
  type SlackAppContext,
} from './slack-posts.ts';
import { slackWebApi } from './slack-web-api.ts';

export type { SlackInteraction } from './slack-interactivity.ts';

/** Options of {@link createSlackApp}. */
export interface SlackAppOptions {
  interlock: Interlock;
  /** The app's bot token (`xoxb-…`, scopes `chat:write`); keep it secret. */
  botToken: string;
  /** The app's signing secret (Basic Information → App Credentials): every interaction is checked with it. */
  signingSecret: string;
  /** Public URL of the Interlock service, for "Edit in Interlock" (e.g. `https://interlock.example.com`). */
  baseUrl: string;
  /** Slack's Web API (default `https://slack.com/api`; tests point it at a local fake). */
  apiUrl?: string;
  /** How long to wait for Slack (default 5000 ms). */
  timeoutMs?: number;
  /** How old a signed interaction may be before it is refused as a replay (default 300 s, as Slack advises). */
  maxAgeSeconds?: number;
  /** Where update failures are reported (default `console.error`). */
  onError?: (message: string) => void;
}

/** The Slack app: channels that post interactive requests, the interactivity endpoint, and the updater. */
export interface SlackApp {
  /** A notification channel posting to one Slack channel (its id, `C…`), with buttons that decide. */
  channel(slackChannelId: string, name?: string): Channel;
  /** Handle one interaction (POST /slack/interactions): `status` and the JSON `body` to answer with. */
  handle(req: SlackInteraction): Promise<{ status: number; body: unknown }>;
  /**
   * Keep posted messages current after every decision from any channel (and, every `sweepMs`, those
   * decided where no event reached this process); returns the stop function.
   */
  start(sweepMs?: number): () => void;
  /** Bring a request's Slack messages up to date now (what `start` does on each decision). */
  refresh(requestId: string): Promise<void>;
}

const schema = z.object({
  botToken: z.string().min(1, 'the bot token (xoxb-…) of the Slack app'),
  signingSecret: z.string().min(8, "the Slack app's signing secret (Basic Information → App Credentials)"),
  baseUrl: z.string().refine(isHttpUrl, 'must be the public URL of the Interlock service'),
  apiUrl: z.string().refine(isHttpUrl, 'must be an http(s) URL').optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxAgeSeconds: z.number().int().positive().optional(),
});

/**
 * A Slack app for reviewers: requests posted with Approve, Reject, Respond and "Edit in Interlock";
 * clicks checked against Slack's signature and decided through the engine with the version and
 * action hash the message showed; messages updated after any decision. Plain `fetch` against four
 * Web API methods (`chat.postMessage`, `chat.update`, `chat.postEphemeral`, `views.open`) keeps it
 * free of a client library. See docs/notifications.md for creating the app.
 */
export function createSlackApp(options: SlackAppOptions): SlackApp {
  const o = parseOptions(
    schema,
    options,
    'createSlackApp',
    'it needs { interlock, botToken, signingSecret, baseUrl } (see docs/notifications.md).',
  );
  const ctx: SlackAppContext = {
    il: options.interlock,
    baseUrl: o.baseUrl,
    call: slackWebApi(o.apiUrl ?? 'https://slack.com/api', o.botToken, o.timeoutMs),
    report: options.onError ?? ((m: string) => console.error(m)),
  };
  const check = { signingSecret: o.signingSecret, maxAgeSeconds: o.maxAgeSeconds ?? 300 };
  return {
    channel: (slackChannelId, name = 'slack-app') => slackAppChannel(ctx, slackChannelId, name),
    handle: (req) => handleSlackInteraction(ctx, check, req),
    refresh: (requestId) => refreshSlackMessages(ctx, requestId),
    start: (sweepMs = 5_000) => keepSlackMessagesCurrent(ctx, sweepMs),
  };
}
