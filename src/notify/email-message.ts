import { escapeHtml, oneLine, truncate } from './escape.ts';
import type { NotificationMessage } from './message.ts';
import { failedRows } from './failed-rows.ts';
import { amountOf, formatUtc, headline, hiddenWarning, summarizeArgs } from './summary.ts';

/** Subject and bodies of a notification e-mail. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * Render a notification as e-mail. In the HTML body every value is escaped,
 * trusted or not; the only link is the review page. Evidence is never part of
 * a notification; arguments are labelled as the agent's proposal.
 */
export function emailMessage(m: NotificationMessage): EmailContent {
  const rows: Array<[string, string]> = [['Tool', truncate(oneLine(m.tool), 100)]];
  if (m.kind === 'approval_execution_failed') rows.unshift(...failedRows(m));
  const amount = amountOf(m.args);
  if (amount !== undefined) rows.push(['Amount', amount]);
  if (m.reason !== null) rows.push(['Reason', truncate(oneLine(m.reason), 500)]);
  rows.push([
    m.kind === 'approval_requested' ? 'Required role' : m.kind === 'fyi' ? 'Told' : 'Role',
    truncate(oneLine(m.role), 100),
  ]);
  if (m.kind === 'approval_requested') {
    rows.push(['Approvals', m.approvalsRequired === 1 ? '1 reviewer' : `${m.approvalsRequired} different reviewers`]);
    rows.push(['Expires', formatUtc(m.expiresAt)]);
  }
  const args = summarizeArgs(m.args, { maxEntries: 20, maxValueLength: 200 });
  const title = headline(m);
  const action = m.kind === 'approval_requested' ? 'Review and decide' : 'Open in Interlock';

  const hidden = hiddenWarning(m.args);
  const text = [
    title,
    '',
    ...(hidden !== undefined ? [hidden, ''] : []),
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    'Arguments (as proposed by the agent):',
    ...(args.length ? args.map((a) => `  ${a.key}: ${a.value}`) : ['  (none)']),
    '',
    ...(m.reviewUrl !== null ? [`${action}: ${m.reviewUrl}`, ''] : []),
    ...(m.kind === 'approval_execution_failed' ? [`Open the thread: ${m.threadUrl}`, ''] : []),
    `Interlock ${m.kind === 'approval_requested' ? 'request' : 'notice'} ${m.id}`,
    '',
  ].join('\n');

  const cell = 'padding:4px 12px 4px 0;vertical-align:top;text-align:left';
  const html = [
    '<!doctype html>',
    '<html><body style="font-family:system-ui,sans-serif;font-size:14px;color:#111">',
    `<h2 style="font-size:18px;margin:0 0 12px">${escapeHtml(title)}</h2>`,
    ...(hidden !== undefined
      ? [
          `<p style="background:#fee4e2;border:1px solid #b42318;padding:8px 12px;border-radius:4px"><strong>${escapeHtml(hidden)}</strong></p>`,
        ]
      : []),
    '<table role="presentation" style="border-collapse:collapse">',
    ...rows.map(
      ([k, v]) => `<tr><th style="${cell}">${escapeHtml(k)}</th><td style="${cell}">${escapeHtml(v)}</td></tr>`,
    ),
    '</table>',
    '<h3 style="font-size:14px;margin:16px 0 4px">Arguments (as proposed by the agent)</h3>',
    '<table role="presentation" style="border-collapse:collapse;font-family:ui-monospace,monospace;font-size:13px">',
    ...(args.length
      ? args.map(
          (a) =>
            `<tr><th style="${cell}">${escapeHtml(a.key)}</th><td style="${cell};white-space:pre-wrap">${escapeHtml(a.value)}</td></tr>`,
        )
      : ['<tr><td>(none)</td></tr>']),
    '</table>',
    ...(m.reviewUrl !== null
      ? [
          `<p style="margin:20px 0"><a href="${escapeHtml(m.reviewUrl)}" style="background:#1d4ed8;color:#fff;padding:8px 14px;border-radius:4px;text-decoration:none">${escapeHtml(action)}</a></p>`,
        ]
      : []),
    ...(m.kind === 'approval_execution_failed'
      ? [`<p><a href="${escapeHtml(m.threadUrl)}">Open the thread</a></p>`]
      : []),
    `<p style="color:#666;font-size:12px">Interlock ${m.kind === 'approval_requested' ? 'request' : 'notice'} ${escapeHtml(m.id)}</p>`,
    '</body></html>',
    '',
  ].join('\n');

  const subject = truncate(
    oneLine(m.kind === 'approval_requested' ? `[Interlock] ${title} (${m.role})` : `[Interlock] ${title}`),
    150,
  );
  return { subject, text, html };
}
