/**
 * Escaping of untrusted text for each output format. Arguments proposed by an
 * agent may contain anything a customer or a model wrote; they must show as
 * text, never as markup, links or mentions (DESIGN invariant 9).
 */

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML[c]!);
}

/**
 * Escape text for Slack `mrkdwn`: Slack's rules name exactly `&`, `<` and `>`,
 * which is what turns `<!channel>`, `<@U123>` and `<https://evil|click>` into
 * plain text.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Replace line breaks and other control characters by spaces, for one-line fields (subjects, headers). */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

/** Cut `text` to at most `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
