import { createHmac, timingSafeEqual } from 'node:crypto';
import { InterlockError, type Reviewer } from '../core/index.ts';
import { auditEvent } from '../engine/index.ts';
import { ACTIONS, messageModal, type ButtonValue } from './slack-interactive.ts';
import { deciderName, refreshSlackMessages, SLACK_PROVIDER, type SlackAppContext } from './slack-posts.ts';

/**
 * The Slack app's interactivity handler: what the server's `POST /slack/interactions` hands over
 * is checked against Slack's signature, parsed, and decided through the engine with the version
 * and action hash the message showed. The route itself (body limit, headers) is the server's.
 */

/** An HTTP request to the interactivity endpoint, as the server hands it over. */
export interface SlackInteraction {
  /** The raw body: the signature covers its exact bytes. */
  body: string;
  headers: { timestamp?: string | undefined; signature?: string | undefined };
}

/** What the handler answers: the HTTP status and the JSON body. */
export type SlackInteractionAnswer = { status: number; body: unknown };

/** How interactions are authenticated: the app's signing secret, and how old a signed one may be. */
export interface SlackSignatureCheck {
  signingSecret: string;
  maxAgeSeconds: number;
}

const ok = (): SlackInteractionAnswer => ({ status: 200, body: {} });
const invalid = (message: string): SlackInteractionAnswer => ({
  status: 400,
  body: { error: { code: 'invalid_input', message } },
});

/** Handle one interaction: a button click (`block_actions`) or a submitted modal (`view_submission`). */
export async function handleSlackInteraction(
  ctx: SlackAppContext,
  check: SlackSignatureCheck,
  req: SlackInteraction,
): Promise<SlackInteractionAnswer> {
  const bad = verified(ctx, check, req);
  if (bad) return { status: 401, body: { error: { code: 'bad_signature', message: bad } } };
  let payload: Payload;
  try {
    payload = JSON.parse(new URLSearchParams(req.body).get('payload') ?? '') as Payload;
  } catch {
    return invalid('no JSON "payload" field');
  }
  const reviewer = await reviewerOf(ctx, payload.user?.id);
  if (payload.type === 'block_actions') return blockAction(ctx, payload, reviewer);
  if (payload.type === 'view_submission') return viewSubmission(ctx, payload, reviewer);
  return ok();
}

/** Why the request is not Slack's (missing headers, a replay, a bad signature); undefined when it is. */
function verified(ctx: SlackAppContext, check: SlackSignatureCheck, req: SlackInteraction): string | undefined {
  const { timestamp, signature } = req.headers;
  const maxAge = check.maxAgeSeconds;
  if (!timestamp || !signature) return 'missing X-Slack-Request-Timestamp or X-Slack-Signature';
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(ctx.il.now() / 1000 - ts) > maxAge)
    return `stale timestamp (older than ${maxAge} s): a replayed request`;
  const expected = Buffer.from(
    `v0=${createHmac('sha256', check.signingSecret).update(`v0:${timestamp}:${req.body}`).digest('hex')}`,
  );
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad signature';
  return undefined;
}

/** A click: Approve decides at once; Reject and Respond open the modal that asks for the message. */
async function blockAction(
  ctx: SlackAppContext,
  payload: Payload,
  reviewer: Reviewer | undefined,
): Promise<SlackInteractionAnswer> {
  const action = payload.actions?.[0];
  if (!action || action.action_id === ACTIONS.edit) return ok(); // a link: Slack opens it
  const v = buttonValue(action.value);
  if (!v) return invalid('the button carries no request');
  if (!reviewer) {
    await ephemeral(ctx, payload, await unknownUser(ctx, payload.user?.id, v.id));
    return ok();
  }
  if (![ACTIONS.approve, ACTIONS.reject, ACTIONS.respond].includes(action.action_id as (typeof ACTIONS)['approve']))
    return invalid(`unknown action "${action.action_id}"; nothing changed`);
  if (action.action_id === ACTIONS.reject || action.action_id === ACTIONS.respond) {
    const kind = action.action_id === ACTIONS.reject ? 'reject' : 'respond';
    // The rule's canned reasons, offered in the reject form (read now: the request as it stands).
    const reasons = kind === 'reject' ? (await ctx.il.getRequest(v.id))?.rejectReasons : undefined;
    await ctx.call('views.open', { trigger_id: payload.trigger_id, view: messageModal(kind, v, reasons) });
    return ok();
  }
  try {
    await ctx.il.decide(v.id, { type: 'approve', expectedVersion: v.v, actionHash: v.h }, reviewer);
    await refreshAfterDecision(ctx, v.id);
  } catch (err) {
    await ephemeral(ctx, payload, await refusal(ctx, err, v.id));
  }
  return ok();
}

/** A submitted modal: the rejection or response with the reviewer's message. */
async function viewSubmission(
  ctx: SlackAppContext,
  payload: Payload,
  reviewer: Reviewer | undefined,
): Promise<SlackInteractionAnswer> {
  const meta = buttonValue(payload.view?.private_metadata);
  if (!meta) return invalid('the form carries no request');
  const callback = payload.view?.callback_id;
  if (callback !== ACTIONS.respond && callback !== ACTIONS.reject) return invalid(`unknown form "${callback}"`);
  const kind = callback === ACTIONS.respond ? 'respond' : 'reject';
  const words = payload.view?.state?.values?.message?.text?.value?.trim() ?? '';
  // A canned reason and the reviewer's own words make one message, as on the web card.
  const choice = kind === 'reject' ? payload.view?.state?.values?.reason?.choice?.selected_option?.value : undefined;
  const text = choice && words ? `${choice} — ${words}` : (choice ?? words);
  // Shown in the modal, next to the message field: the reviewer can correct it and submit again.
  const fail = (message: string) => ({ status: 200, body: { response_action: 'errors', errors: { message } } });
  if (!reviewer) return fail(await unknownUser(ctx, payload.user?.id, meta.id));
  if (kind === 'respond' && !text) return fail('Write the answer the agent should get.');
  try {
    await ctx.il.decide(
      meta.id,
      { type: kind, expectedVersion: meta.v, actionHash: meta.h, ...(text ? { message: text } : {}) },
      reviewer,
    );
  } catch (err) {
    return fail(await refusal(ctx, err, meta.id));
  }
  await refreshAfterDecision(ctx, meta.id);
  return ok();
}

/** The decision landed: a failed update of the messages is reported, not the reviewer's problem. */
async function refreshAfterDecision(ctx: SlackAppContext, requestId: string): Promise<void> {
  await refreshSlackMessages(ctx, requestId).catch((err: unknown) =>
    ctx.report(`slack: update after a decision failed: ${String(err)}`),
  );
}

/** Why a decision could not land, as a reviewer reads it in Slack. */
async function refusal(ctx: SlackAppContext, err: unknown, id: string): Promise<string> {
  if (!(err instanceof InterlockError)) throw err;
  // Who decided is told only to a reviewer the decision was open to (as the API does): a reviewer
  // without the role learns that and nothing of the request's state.
  const req = err.code === 'already_resolved' ? await ctx.il.getRequest(id) : undefined;
  if (req && req.status !== 'pending' && req.resolution) {
    const who = (await deciderName(ctx.il, req))[req.resolution.by] ?? req.resolution.by;
    return `Already decided: ${req.status} by ${who} at ${new Date(req.resolution.at).toISOString()}. Nothing changed.`;
  }
  return `${err.message} (${err.code}). Nothing changed.`;
}

/** The reviewer a Slack user is linked to; undefined when none is, or it was revoked. */
async function reviewerOf(ctx: SlackAppContext, slackUser: string | undefined): Promise<Reviewer | undefined> {
  const r = slackUser ? await ctx.il.reviewers.getReviewerByIdentity(SLACK_PROVIDER, slackUser) : undefined;
  return r && !r.revoked ? { id: r.id, name: r.name, roles: r.roles } : undefined;
}

/** Audit the refusal of an unlinked Slack user; what to tell them (how to get linked). */
async function unknownUser(
  ctx: SlackAppContext,
  slackUser: string | undefined,
  requestId: string | undefined,
): Promise<string> {
  await ctx.il.audit.record([
    auditEvent(
      'refused',
      `slack:${slackUser ?? 'unknown'}`,
      { code: 'unknown_reviewer', via: 'slack' },
      { requestId: requestId ?? null },
    ),
  ]);
  return `Your Slack account (${slackUser ?? '?'}) is not linked to an Interlock reviewer. Ask an operator to run: interlock reviewers link-slack <reviewer-id> ${slackUser ?? '<your Slack user id>'}`;
}

/** A message only the clicking user sees, in the channel of the click. */
async function ephemeral(ctx: SlackAppContext, payload: Payload, text: string): Promise<void> {
  const ch = payload.channel?.id ?? payload.container?.channel_id;
  if (ch && payload.user?.id) await ctx.call('chat.postEphemeral', { channel: ch, user: payload.user.id, text });
}

/** A button's (or a modal's) request, version and action hash; undefined when it is not one of ours. */
function buttonValue(raw: string | undefined): ButtonValue | undefined {
  try {
    const v = JSON.parse(raw ?? '') as Partial<ButtonValue>;
    return typeof v.id === 'string' && typeof v.v === 'number' && typeof v.h === 'string'
      ? { id: v.id, v: v.v, h: v.h }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The parts of Slack's interaction payloads this app reads. */
interface Payload {
  type?: string;
  user?: { id?: string };
  channel?: { id?: string };
  container?: { channel_id?: string };
  trigger_id?: string;
  actions?: Array<{ action_id?: string; value?: string }>;
  view?: {
    callback_id?: string;
    private_metadata?: string;
    state?: {
      values?: {
        message?: { text?: { value?: string | null } };
        reason?: { choice?: { selected_option?: { value?: string } | null } };
      };
    };
  };
}
