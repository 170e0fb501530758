import { reveal } from '../core/reveal.ts';

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

/**
 * One line of text for people: line breaks and tabs become spaces, and every
 * other hidden character (control, bidi, zero-width, separator…) shows as
 * `⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩` (core/reveal.ts) — so no header can be
 * injected and no reader sees `ACC-42` for the bytes `\u202e24-CCA`. Every
 * human-readable field of Slack, e-mail and webhook summaries goes through it.
 */
export function oneLine(text: string): string {
  return reveal(text.replace(/(?:\r\n|[\n\t])+/g, ' ')).trim();
}

/** Cut `text` to at most `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
