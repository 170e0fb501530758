import type { ApprovalRequest } from '../core/index.ts';
import type { Interlock } from '../engine/index.ts';
import type { Channel } from './channel.ts';
import { decidedMessage, requestMessage } from './slack-interactive.ts';
import { slackFailedMessage, slackMessage } from './slack-message.ts';
import type { ApprovalFailedMessage } from './message.ts';
import type { SlackCall } from './slack-web-api.ts';

/**
 * The Slack app's posted messages: a channel that posts requests (and records where each went),
 * and the updates that keep them current after decisions from any channel.
 */

/** Provider name of the Slack app's posted messages and linked reviewer identities. */
export const SLACK_PROVIDER = 'slack';

/** What the Slack app's parts share: the engine, the review page's base URL, the Web API, where failures go. */
export interface SlackAppContext {
  il: Interlock;
  baseUrl: string;
  call: SlackCall;
  report: (message: string) => void;
}

/** A channel posting to one Slack channel (its id, `C…`), with buttons that decide. */
export function slackAppChannel(ctx: SlackAppContext, slackChannelId: string, name: string): Channel {
  const { il, call, baseUrl } = ctx;
  return {
    name,
    async send(message) {
      if (message.kind === 'approval_execution_failed') return tellApprovers(ctx, slackChannelId, message);
      if (message.kind !== 'approval_requested') {
        await call('chat.postMessage', { channel: slackChannelId, ...slackMessage(message) });
        return;
      }
      const req = await il.getRequest(message.id);
      if (!req) return; // gone (its thread was deleted): nothing to ask
      // A request already decided (a slow outbox) is posted as decided: no button that can only fail.
      const body = req.status === 'pending' ? requestMessage(req, baseUrl) : decidedMessage(req, baseUrl, {});
      const posted = await call('chat.postMessage', { channel: slackChannelId, ...body });
      await il.reviewers.recordPostedMessage(
        req.id,
        SLACK_PROVIDER,
        `${typeof posted.channel === 'string' ? posted.channel : slackChannelId}:${typeof posted.ts === 'string' ? posted.ts : ''}`,
        req.version,
        req.status !== 'pending',
        il.now(),
      );
    },
  };
}

/**
 * An approved action failed: a direct message to each approver linked to a Slack user (the bot
 * writes to them in its own conversation), and the channel's message for those who are not — it
 * names every approver, so the people meant see it is theirs.
 */
async function tellApprovers(ctx: SlackAppContext, slackChannelId: string, m: ApprovalFailedMessage): Promise<void> {
  const body = slackFailedMessage(m);
  const linked = await ctx.il.attention.linkedAccounts(
    SLACK_PROVIDER,
    m.approvers.map((a) => a.id),
  );
  const told = new Set<string>();
  for (const l of linked) {
    if (told.has(l.reviewerId)) continue;
    await ctx.call('chat.postMessage', { channel: l.externalId, ...body });
    told.add(l.reviewerId);
  }
  if (m.approvers.some((a) => !told.has(a.id)))
    await ctx.call('chat.postMessage', { channel: slackChannelId, ...body });
}

/** The name of the reviewer who decided `req`, by id, when there is one. */
export async function deciderName(il: Interlock, req: ApprovalRequest): Promise<Record<string, string>> {
  const by = req.resolution?.by;
  const r = by ? await il.reviewers.getReviewer(by) : undefined;
  return r && by ? { [by]: r.name } : {};
}

/** Bring a request's Slack messages up to date now. */
export async function refreshSlackMessages(ctx: SlackAppContext, requestId: string): Promise<void> {
  const { il, call, baseUrl } = ctx;
  const refs = await il.reviewers.listPostedMessages(requestId, SLACK_PROVIDER);
  if (refs.length === 0) return;
  const req = await il.getRequest(requestId);
  if (!req) return;
  // Pending (a quorum's first vote): new buttons carry the new version, so the next reviewer's click lands.
  const body =
    req.status === 'pending' ? requestMessage(req, baseUrl) : decidedMessage(req, baseUrl, await deciderName(il, req));
  for (const ref of refs) {
    const [ch, ts] = [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)];
    await call('chat.update', { channel: ch, ts, ...body });
    await il.reviewers.recordPostedMessage(
      req.id,
      SLACK_PROVIDER,
      ref,
      req.version,
      req.status !== 'pending',
      il.now(),
    );
  }
}

/** Keep posted messages current after every decision, and sweep every `sweepMs`; returns the stop function. */
export function keepSlackMessagesCurrent(ctx: SlackAppContext, sweepMs: number): () => void {
  const { il, report } = ctx;
  const update = (id: string) =>
    void refreshSlackMessages(ctx, id).catch((err: unknown) =>
      report(`slack: could not update the messages of ${id}: ${err instanceof Error ? err.message : String(err)}`),
    );
  // Every decision, from any channel (UI, API, CLI, Slack, a timeout): at once for this process's and,
  // on PostgreSQL, other processes' events; the sweep catches the rest (a CLI decision on SQLite, a failed update).
  const off = il.on((e) => {
    if (e.type === 'approval.decided' || e.type === 'approval.expired') update(e.requestId);
  });
  const timer = setInterval(() => {
    void il.reviewers
      .listStalePostedMessages(SLACK_PROVIDER, 50)
      .then((ids) => ids.forEach(update))
      .catch((err: unknown) => report(`slack: sweep failed: ${err instanceof Error ? err.message : String(err)}`));
  }, sweepMs);
  timer.unref();
  return () => {
    off();
    clearInterval(timer);
  };
}
