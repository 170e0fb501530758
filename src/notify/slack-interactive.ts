import type { ApprovalRequest } from '../core/index.ts';
import { escapeSlack, oneLine, truncate } from './escape.ts';
import { approvalRequestedMessage } from './message.ts';
import { slackMessage, type SlackPayload, type SlackText } from './slack-message.ts';

/**
 * The messages of the Slack app (docs/notifications.md): a request with buttons that decide it in
 * Slack, the same message once decided, and the modal that asks for a reviewer's message. Every
 * untrusted value is escaped as in {@link slackMessage}; the evidence is set apart as quoted text.
 */

/** What a button carries: the request, and the version and action hash the message showed. */
export interface ButtonValue {
  id: string;
  v: number;
  h: string;
}

/** Action ids of the buttons. */
export const ACTIONS = {
  approve: 'interlock_approve',
  reject: 'interlock_reject',
  respond: 'interlock_respond',
  edit: 'interlock_edit',
} as const;

const md = (text: string): SlackText => ({ type: 'mrkdwn', text, verbatim: true });
const plain = (text: string): SlackText => ({ type: 'plain_text', text: escapeSlack(text), emoji: false });

/** The untrusted evidence as quoted lines, each escaped and cut short. */
function evidenceQuote(evidence: Record<string, unknown>): string | undefined {
  const lines = Object.entries(evidence)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .slice(0, 6)
    .map(
      ([k, v]) =>
        `> *${escapeSlack(oneLine(k))}:* ${escapeSlack(truncate(oneLine(typeof v === 'string' ? v : JSON.stringify(v)), 300))}`,
    );
  return lines.length ? `*Evidence (untrusted: from the customer or the model)*\n${lines.join('\n')}` : undefined;
}

/** The base message of a request, without its link button and footer (they are replaced below). */
function base(req: ApprovalRequest, baseUrl: string): SlackPayload {
  const p = slackMessage(approvalRequestedMessage(req, baseUrl));
  const blocks = p.blocks.filter((b) => b.type !== 'actions' && b.type !== 'context');
  const fields = blocks.find((b) => b.type === 'section' && b.fields);
  if (fields && fields.type === 'section')
    fields.fields = [...(fields.fields ?? []), md(`*Tier*\n${escapeSlack(req.tier)}`)];
  const quote = evidenceQuote(req.evidence);
  if (quote) blocks.push({ type: 'section', text: md(quote) });
  return { text: p.text, blocks };
}

/** A pending request with Approve, Reject, Respond and "Edit in Interlock". */
export function requestMessage(req: ApprovalRequest, baseUrl: string): SlackPayload {
  const p = base(req, baseUrl);
  const value = JSON.stringify({ id: req.id, v: req.version, h: req.actionHash } satisfies ButtonValue);
  const quorum =
    req.approvalsRequired > 1 ? ` · ${req.approvalsReceived} of ${req.approvalsRequired} approvals so far` : '';
  return {
    text: p.text,
    blocks: [
      ...p.blocks,
      {
        type: 'actions',
        block_id: `interlock:${req.id}`,
        // Only the decisions the request's rule allows (approve and reject always are).
        elements: [
          { type: 'button', text: plain('Approve'), action_id: ACTIONS.approve, value, style: 'primary' },
          { type: 'button', text: plain('Reject'), action_id: ACTIONS.reject, value, style: 'danger' },
          ...(allows(req, 'respond')
            ? [{ type: 'button', text: plain('Respond'), action_id: ACTIONS.respond, value }]
            : []),
          // Edits need the form and the diff: they happen on the review page.
          ...(allows(req, 'edit')
            ? [
                {
                  type: 'button',
                  text: plain('Edit in Interlock'),
                  action_id: ACTIONS.edit,
                  url: `${baseUrl.replace(/\/+$/, '')}/approvals/${encodeURIComponent(req.id)}`,
                },
              ]
            : []),
        ],
      },
      { type: 'context', elements: [md(`Interlock · request ${escapeSlack(req.id)} · v${req.version}${quorum}`)] },
    ],
  } as SlackPayload;
}

const allows = (req: ApprovalRequest, d: 'edit' | 'respond') => !req.decisions || req.decisions.includes(d);

/** Past tense of how a request ended, for the updated message. */
function outcome(req: ApprovalRequest): string {
  const r = req.resolution;
  switch (req.status) {
    case 'authorized':
    case 'executing':
    case 'executed':
    case 'failed':
      return r?.type === 'edit'
        ? 'Edited and approved'
        : r?.type === 'timeout'
          ? 'Approved by its timeout default'
          : 'Approved';
    case 'rejected':
      return 'Rejected';
    case 'responded':
      return 'Answered';
    case 'expired':
      return `Expired (${r?.applied ?? req.onTimeout} applied)`;
    case 'superseded':
      return 'Replaced by a new request';
    case 'cancelled':
      return 'Cancelled';
    default:
      return req.status;
  }
}

/** The message once the request is decided (from any channel): the buttons give way to the outcome. */
export function decidedMessage(req: ApprovalRequest, baseUrl: string, names: Record<string, string>): SlackPayload {
  const p = base(req, baseUrl);
  const r = req.resolution;
  const by = r && r.type !== 'timeout' ? ` by ${escapeSlack(oneLine(names[r.by] ?? r.by))}` : '';
  const at = r ? ` at ${new Date(r.at).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '';
  const said = r?.message ? `: “${escapeSlack(truncate(oneLine(r.message), 300))}”` : '';
  return {
    text: `${outcome(req)}: ${p.text}`,
    blocks: [
      ...p.blocks,
      { type: 'section', text: md(`*${outcome(req)}*${by}${at}${said}`) },
      { type: 'context', elements: [md(`Interlock · request ${escapeSlack(req.id)}`)] },
    ],
  };
}

/** The block id and action id of the canned reasons' menu in the reject modal. */
export const REASON_BLOCK = 'reason';

/**
 * The modal that asks for a rejection's message or a response. A reject of a rule with canned reasons
 * offers them in a menu (the choice, the reviewer's own words, or both — as on the web card); a rule
 * that requires a reason says so in the labels, and the engine refuses a reject without one.
 */
export function messageModal(
  kind: 'reject' | 'respond',
  meta: ButtonValue & { channel?: string },
  reasons?: { required: boolean; choices: readonly string[] },
) {
  const choices = kind === 'reject' ? (reasons?.choices ?? []) : [];
  const required = kind === 'reject' && reasons?.required === true;
  const menu = choices.length
    ? [
        {
          type: 'input',
          block_id: REASON_BLOCK,
          optional: true,
          label: plain(required ? 'Reason (required: pick one, or write it below)' : 'Reason'),
          element: {
            type: 'static_select',
            action_id: 'choice',
            placeholder: plain('Pick a reason'),
            options: choices.slice(0, 100).map((c) => ({ text: plain(c.slice(0, 75)), value: c.slice(0, 150) })),
          },
        },
      ]
    : [];
  const label =
    kind === 'respond'
      ? 'Your answer (the agent gets it as the result)'
      : choices.length
        ? 'Your own words (added to the reason, or on their own; the agent sees this)'
        : required
          ? 'Why (required; the agent sees this)'
          : 'Why (the agent sees this)';
  return {
    type: 'modal',
    callback_id: kind === 'reject' ? ACTIONS.reject : ACTIONS.respond,
    private_metadata: JSON.stringify(meta),
    title: plain(kind === 'reject' ? 'Reject' : 'Respond'),
    submit: plain(kind === 'reject' ? 'Reject' : 'Send'),
    close: plain('Cancel'),
    blocks: [
      ...menu,
      {
        type: 'input',
        block_id: 'message',
        // A reject's words may be left out (the engine says when the rule needs a reason); an answer may not.
        ...(kind === 'reject' ? { optional: true } : {}),
        label: plain(label),
        element: { type: 'plain_text_input', action_id: 'text', multiline: true, max_length: 2000 },
      },
    ],
  };
}
