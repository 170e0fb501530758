import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { InterlockError, type ApprovalRequest, type Reviewer } from '../core/index.ts';
import { auditEvent, type Interlock } from '../engine/index.ts';
import { DEFAULT_CHANNEL_TIMEOUT_MS, type Channel } from './channel.ts';
import { DeliveryError } from './delivery-error.ts';
import { isHttpUrl, parseOptions } from './options.ts';
import { ACTIONS, decidedMessage, messageModal, requestMessage, type ButtonValue } from './slack-interactive.ts';
import { slackMessage } from './slack-message.ts';

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

/** An HTTP request to the interactivity endpoint, as the server hands it over. */
export interface SlackInteraction {
  /** The raw body: the signature covers its exact bytes. */
  body: string;
  headers: { timestamp?: string | undefined; signature?: string | undefined };
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

const PROVIDER = 'slack';

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
  const il = options.interlock;
  const api = (o.apiUrl ?? 'https://slack.com/api').replace(/\/+$/, '');
  const maxAge = o.maxAgeSeconds ?? 300;
  const report = options.onError ?? ((m: string) => console.error(m));

  /** One Web API call; Slack answers 200 with `ok: false` for its own errors. */
  async function call(method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(`${api}/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=utf-8', Authorization: `Bearer ${o.botToken}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(o.timeoutMs ?? DEFAULT_CHANNEL_TIMEOUT_MS),
      });
    } catch (err) {
      throw new DeliveryError('slack', `${method}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || json.ok !== true)
      throw new DeliveryError(
        'slack',
        `${method}: ${typeof json.error === 'string' ? json.error : `HTTP ${res.status}`}`,
        {
          status: res.status,
        },
      );
    return json;
  }

  function channel(slackChannelId: string, name = 'slack-app'): Channel {
    return {
      name,
      async send(message) {
        if (message.kind !== 'approval_requested') {
          await call('chat.postMessage', { channel: slackChannelId, ...slackMessage(message) });
          return;
        }
        const req = await il.getRequest(message.id);
        if (!req) return; // gone (its thread was deleted): nothing to ask
        // A request already decided (a slow outbox) is posted as decided: no button that can only fail.
        const body = req.status === 'pending' ? requestMessage(req, o.baseUrl) : decidedMessage(req, o.baseUrl, {});
        const posted = await call('chat.postMessage', { channel: slackChannelId, ...body });
        await il.reviewers.recordPostedMessage(
          req.id,
          PROVIDER,
          `${typeof posted.channel === 'string' ? posted.channel : slackChannelId}:${typeof posted.ts === 'string' ? posted.ts : ''}`,
          req.version,
          req.status !== 'pending',
          il.now(),
        );
      },
    };
  }

  async function names(req: ApprovalRequest): Promise<Record<string, string>> {
    const by = req.resolution?.by;
    const r = by ? await il.reviewers.getReviewer(by) : undefined;
    return r && by ? { [by]: r.name } : {};
  }

  async function refresh(requestId: string): Promise<void> {
    const refs = await il.reviewers.listPostedMessages(requestId, PROVIDER);
    if (refs.length === 0) return;
    const req = await il.getRequest(requestId);
    if (!req) return;
    // Pending (a quorum's first vote): new buttons carry the new version, so the next reviewer's click lands.
    const body =
      req.status === 'pending' ? requestMessage(req, o.baseUrl) : decidedMessage(req, o.baseUrl, await names(req));
    for (const ref of refs) {
      const [ch, ts] = [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)];
      await call('chat.update', { channel: ch, ts, ...body });
      await il.reviewers.recordPostedMessage(req.id, PROVIDER, ref, req.version, req.status !== 'pending', il.now());
    }
  }

  function verified(req: SlackInteraction): string | undefined {
    const { timestamp, signature } = req.headers;
    if (!timestamp || !signature) return 'missing X-Slack-Request-Timestamp or X-Slack-Signature';
    const ts = Number(timestamp);
    if (!Number.isInteger(ts) || Math.abs(il.now() / 1000 - ts) > maxAge)
      return `stale timestamp (older than ${maxAge} s): a replayed request`;
    const expected = Buffer.from(
      `v0=${createHmac('sha256', o.signingSecret).update(`v0:${timestamp}:${req.body}`).digest('hex')}`,
    );
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad signature';
    return undefined;
  }

  /** Why a decision could not land, as a reviewer reads it in Slack. */
  async function refusal(err: unknown, id: string): Promise<string> {
    if (!(err instanceof InterlockError)) throw err;
    // Who decided is told only to a reviewer the decision was open to (as the API does): a reviewer
    // without the role learns that and nothing of the request's state.
    const req = err.code === 'already_resolved' ? await il.getRequest(id) : undefined;
    if (req && req.status !== 'pending' && req.resolution) {
      const who = (await names(req))[req.resolution.by] ?? req.resolution.by;
      return `Already decided: ${req.status} by ${who} at ${new Date(req.resolution.at).toISOString()}. Nothing changed.`;
    }
    return `${err.message} (${err.code}). Nothing changed.`;
  }

  async function reviewerOf(slackUser: string | undefined): Promise<Reviewer | undefined> {
    const r = slackUser ? await il.reviewers.getReviewerByIdentity(PROVIDER, slackUser) : undefined;
    return r && !r.revoked ? { id: r.id, name: r.name, roles: r.roles } : undefined;
  }

  async function unknownUser(slackUser: string | undefined, requestId: string | undefined): Promise<string> {
    await il.audit.record([
      auditEvent(
        'refused',
        `slack:${slackUser ?? 'unknown'}`,
        { code: 'unknown_reviewer', via: 'slack' },
        { requestId: requestId ?? null },
      ),
    ]);
    return `Your Slack account (${slackUser ?? '?'}) is not linked to an Interlock reviewer. Ask an operator to run: interlock reviewers link-slack <reviewer-id> ${slackUser ?? '<your Slack user id>'}`;
  }

  async function ephemeral(payload: Payload, text: string): Promise<void> {
    const ch = payload.channel?.id ?? payload.container?.channel_id;
    if (ch && payload.user?.id) await call('chat.postEphemeral', { channel: ch, user: payload.user.id, text });
  }

  async function handle(req: SlackInteraction): Promise<{ status: number; body: unknown }> {
    const bad = verified(req);
    if (bad) return { status: 401, body: { error: { code: 'bad_signature', message: bad } } };
    let payload: Payload;
    try {
      payload = JSON.parse(new URLSearchParams(req.body).get('payload') ?? '') as Payload;
    } catch {
      return { status: 400, body: { error: { code: 'invalid_input', message: 'no JSON "payload" field' } } };
    }
    const reviewer = await reviewerOf(payload.user?.id);

    if (payload.type === 'block_actions') {
      const action = payload.actions?.[0];
      if (!action || action.action_id === ACTIONS.edit) return { status: 200, body: {} }; // a link: Slack opens it
      const v = buttonValue(action.value);
      if (!v)
        return { status: 400, body: { error: { code: 'invalid_input', message: 'the button carries no request' } } };
      if (!reviewer) {
        await ephemeral(payload, await unknownUser(payload.user?.id, v.id));
        return { status: 200, body: {} };
      }
      if (![ACTIONS.approve, ACTIONS.reject, ACTIONS.respond].includes(action.action_id as (typeof ACTIONS)['approve']))
        return {
          status: 400,
          body: { error: { code: 'invalid_input', message: `unknown action "${action.action_id}"; nothing changed` } },
        };
      if (action.action_id === ACTIONS.reject || action.action_id === ACTIONS.respond) {
        const kind = action.action_id === ACTIONS.reject ? 'reject' : 'respond';
        await call('views.open', { trigger_id: payload.trigger_id, view: messageModal(kind, v) });
        return { status: 200, body: {} };
      }
      try {
        await il.decide(v.id, { type: 'approve', expectedVersion: v.v, actionHash: v.h }, reviewer);
        await refresh(v.id).catch((err: unknown) => report(`slack: update after a decision failed: ${String(err)}`));
      } catch (err) {
        await ephemeral(payload, await refusal(err, v.id));
      }
      return { status: 200, body: {} };
    }

    if (payload.type === 'view_submission') {
      const meta = buttonValue(payload.view?.private_metadata);
      if (!meta)
        return { status: 400, body: { error: { code: 'invalid_input', message: 'the form carries no request' } } };
      const callback = payload.view?.callback_id;
      if (callback !== ACTIONS.respond && callback !== ACTIONS.reject)
        return { status: 400, body: { error: { code: 'invalid_input', message: `unknown form "${callback}"` } } };
      const kind = callback === ACTIONS.respond ? 'respond' : 'reject';
      const text = payload.view?.state?.values?.message?.text?.value?.trim() ?? '';
      const fail = (message: string) => ({ status: 200, body: { response_action: 'errors', errors: { message } } });
      if (!reviewer) return fail(await unknownUser(payload.user?.id, meta.id));
      if (kind === 'respond' && !text) return fail('Write the answer the agent should get.');
      try {
        await il.decide(
          meta.id,
          { type: kind, expectedVersion: meta.v, actionHash: meta.h, ...(text ? { message: text } : {}) },
          reviewer,
        );
      } catch (err) {
        return fail(await refusal(err, meta.id));
      }
      await refresh(meta.id).catch((err: unknown) => report(`slack: update after a decision failed: ${String(err)}`));
      return { status: 200, body: {} };
    }
    return { status: 200, body: {} };
  }

  return {
    channel,
    handle,
    refresh,
    start(sweepMs = 5_000) {
      const update = (id: string) =>
        void refresh(id).catch((err: unknown) =>
          report(`slack: could not update the messages of ${id}: ${err instanceof Error ? err.message : String(err)}`),
        );
      // Every decision, from any channel (UI, API, CLI, Slack, a timeout): at once for this process's and,
      // on PostgreSQL, other processes' events; the sweep catches the rest (a CLI decision on SQLite, a failed update).
      const off = il.on((e) => {
        if (e.type === 'approval.decided' || e.type === 'approval.expired') update(e.requestId);
      });
      const timer = setInterval(() => {
        void il.reviewers
          .listStalePostedMessages(PROVIDER, 50)
          .then((ids) => ids.forEach(update))
          .catch((err: unknown) => report(`slack: sweep failed: ${err instanceof Error ? err.message : String(err)}`));
      }, sweepMs);
      timer.unref();
      return () => {
        off();
        clearInterval(timer);
      };
    },
  };
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
    state?: { values?: { message?: { text?: { value?: string } } } };
  };
}
