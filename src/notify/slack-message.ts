import { escapeSlack, oneLine, truncate } from './escape.ts';
import { lookAlikeWarning, lookAlikeWords } from './look-alike.ts';
import type { ApprovalFailedMessage, NotificationMessage } from './message.ts';
import { amountOf, approverNames, formatUtc, headline, hiddenWarning, summarizeArgs } from './summary.ts';

/** A Slack text object. */
export interface SlackText {
  type: 'plain_text' | 'mrkdwn';
  text: string;
  emoji?: boolean;
  verbatim?: boolean;
}

/** The Block Kit blocks this module writes. */
export type SlackBlock =
  | { type: 'header'; text: SlackText }
  | { type: 'section'; text?: SlackText; fields?: SlackText[] }
  | {
      type: 'actions';
      elements: Array<{ type: 'button'; text: SlackText; url: string; action_id: string; style?: 'primary' }>;
    }
  | { type: 'context'; elements: SlackText[] };

/** The JSON body posted to a Slack incoming webhook. */
export interface SlackPayload {
  /** Fallback for notifications and clients without blocks. */
  text: string;
  blocks: SlackBlock[];
}

const SECTION_MAX = 2900; // Slack refuses section text over 3000 characters

/**
 * `mrkdwn` whose untrusted parts were escaped (`&`, `<`, `>`) so no link,
 * mention or `<!channel>` can form; `verbatim` also stops Slack from turning
 * bare URLs and names in it into links. Only text made of trusted values alone
 * (the date token) is sent without it.
 */
function md(text: string, verbatim = true): SlackText {
  return verbatim ? { type: 'mrkdwn', text, verbatim: true } : { type: 'mrkdwn', text };
}

function plain(text: string): SlackText {
  return { type: 'plain_text', text: escapeSlack(text), emoji: false };
}

/** A date Slack shows in the reader's time zone, with a UTC fallback. */
function slackDate(ms: number): string {
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time}|${formatUtc(ms)}>`;
}

/**
 * The Block Kit message for a notification. Every untrusted value (tool
 * arguments, and the tool name and reason for good measure) is escaped; the
 * only links are the review button and Slack's own date token, both built from
 * trusted values. Evidence is never part of a notification.
 */
export function slackMessage(m: NotificationMessage): SlackPayload {
  if (m.kind === 'approval_execution_failed') return slackFailedMessage(m);
  const title = truncate(headline(m), 150);
  const fields: SlackText[] = [md(`*Tool*\n${escapeSlack(truncate(oneLine(m.tool), 100))}`)];
  const amount = amountOf(m.args);
  if (amount !== undefined) fields.push(md(`*Amount*\n${escapeSlack(amount)}`));
  fields.push(md(`*${m.kind === 'fyi' ? 'Told' : 'Required role'}*\n${escapeSlack(truncate(oneLine(m.role), 100))}`));
  if (m.kind === 'approval_requested') {
    fields.push(
      md(`*Approvals*\n${m.approvalsRequired === 1 ? '1 reviewer' : `${m.approvalsRequired} different reviewers`}`),
    );
    fields.push(md(`*Expires*\n${slackDate(m.expiresAt)}`, false));
  }

  const blocks: SlackBlock[] = [{ type: 'header', text: plain(title) }];
  const hidden = hiddenWarning(m.args);
  if (hidden !== undefined) blocks.push({ type: 'section', text: md(`:warning: *${escapeSlack(hidden)}*`) });
  const lookAlike = lookAlikeWarning(m.args);
  if (lookAlike !== undefined) blocks.push({ type: 'section', text: md(`:warning: *${escapeSlack(lookAlike)}*`) });
  if (m.reason !== null)
    blocks.push({ type: 'section', text: md(`*Reason:* ${escapeSlack(truncate(oneLine(m.reason), 500))}`) });
  blocks.push({ type: 'section', fields });
  blocks.push({ type: 'section', text: md(argsText(m.args)) });
  if (m.reviewUrl !== null) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: plain(m.kind === 'fyi' ? 'Open' : 'Review'),
          url: m.reviewUrl,
          action_id: 'interlock_review',
          ...(m.kind === 'fyi' ? {} : { style: 'primary' as const }),
        },
      ],
    });
  }
  blocks.push({
    type: 'context',
    elements: [md(`Interlock · ${m.kind === 'fyi' ? 'for information' : 'request'} ${escapeSlack(m.id)}`)],
  });

  const fallback = m.kind === 'fyi' ? `${title}` : `${title} (role ${oneLine(m.role)})`;
  return { text: escapeSlack(truncate(fallback, 300)), blocks };
}

/**
 * An approved action that failed: what failed and why, who approved it (named: in a shared channel
 * they are the ones meant), the arguments it ran with, and links to the card and the thread.
 */
export function slackFailedMessage(m: ApprovalFailedMessage): SlackPayload {
  const tool = escapeSlack(truncate(oneLine(m.tool), 100));
  const fields: SlackText[] = [md(`*Tool*\n${tool}`)];
  const amount = amountOf(m.args);
  if (amount !== undefined) fields.push(md(`*Amount*\n${escapeSlack(amount)}`));
  fields.push(md(`*Approved by*\n${escapeSlack(approverNames(m.approvers))}`));
  fields.push(md(`*Failed*\n${slackDate(m.failedAt)}`, false));
  const blocks: SlackBlock[] = [
    { type: 'header', text: plain('Your approval did not happen') },
    { type: 'section', text: md(`*${tool} failed:* ${escapeSlack(truncate(oneLine(m.error), 1000))}`) },
    { type: 'section', fields },
  ];
  const hidden = hiddenWarning(m.args);
  if (hidden !== undefined) blocks.push({ type: 'section', text: md(`:warning: *${escapeSlack(hidden)}*`) });
  const lookAlike = lookAlikeWarning(m.args);
  if (lookAlike !== undefined) blocks.push({ type: 'section', text: md(`:warning: *${escapeSlack(lookAlike)}*`) });
  blocks.push({ type: 'section', text: md(argsText(m.args)) });
  blocks.push({
    type: 'actions',
    elements: [
      { type: 'button', text: plain('Open the request'), url: m.reviewUrl, action_id: 'interlock_review' },
      { type: 'button', text: plain('Open the thread'), url: m.threadUrl, action_id: 'interlock_thread' },
    ],
  });
  blocks.push({ type: 'context', elements: [md(`Interlock · failed approval ${escapeSlack(m.id)}`)] });
  return { text: escapeSlack(truncate(headline(m), 300)), blocks };
}

function argsText(args: Record<string, unknown>): string {
  const lines = summarizeArgs(args);
  if (lines.length === 0) return '*Arguments*\n(none)';
  let out = '*Arguments*';
  for (const l of lines) {
    // The chip beside the argument that holds look-alike letters (on the summarised text, which is what shows).
    const words = lookAlikeWords(l.value, 3);
    const chip = words === undefined ? '' : `  :warning: _look-alike letters: ${escapeSlack(words)}_`;
    const line = `\n• ${escapeSlack(l.key)}: ${escapeSlack(l.value)}${chip}`;
    if (out.length + line.length > SECTION_MAX) {
      out += '\n• …';
      break;
    }
    out += line;
  }
  return out;
}
