import { describeHidden, findHiddenDeep } from '../core/reveal.ts';
import type { NotificationMessage } from './message.ts';
import { oneLine, truncate } from './escape.ts';

/** One line of an arguments summary; both parts are untrusted, unescaped text. */
export interface ArgLine {
  key: string;
  value: string;
}

/** Limits of {@link summarizeArgs}. */
export interface SummaryLimits {
  /** Arguments listed before "… n more" (default 8). */
  maxEntries?: number;
  /** Characters kept of each value (default 80). */
  maxValueLength?: number;
}

/**
 * A short, single-line-per-argument view of the arguments, `amount` first when
 * present. Values are not escaped: each channel escapes for its own format.
 */
export function summarizeArgs(args: Record<string, unknown>, limits: SummaryLimits = {}): ArgLine[] {
  const maxEntries = limits.maxEntries ?? 8;
  const maxValue = limits.maxValueLength ?? 80;
  const keys = Object.keys(args).sort((a, b) => (a === 'amount' ? -1 : b === 'amount' ? 1 : 0));
  const lines = keys
    .slice(0, maxEntries)
    .map((key) => ({ key: truncate(oneLine(key), 40), value: truncate(oneLine(valueText(args[key])), maxValue) }));
  if (keys.length > maxEntries) lines.push({ key: '…', value: `${keys.length - maxEntries} more` });
  return lines;
}

/** The amount of a call (`amount`, with `currency` when given), or undefined. */
export function amountOf(args: Record<string, unknown>): string | undefined {
  const a = args.amount;
  if (typeof a !== 'number' && typeof a !== 'string') return undefined;
  const currency = typeof args.currency === 'string' ? ` ${args.currency}` : '';
  return truncate(oneLine(`${a}${currency}`), 40);
}

/**
 * The warning a notification carries when the arguments hold hidden
 * characters (unescaped), or undefined. The values themselves show them as
 * `⟨U+…⟩` through {@link oneLine}.
 */
export function hiddenWarning(args: Record<string, unknown>): string | undefined {
  const hidden = findHiddenDeep(args);
  if (hidden.length === 0) return undefined;
  return `Warning: the arguments contain hidden characters (${describeHidden(hidden)}), shown as ⟨U+…⟩. They run exactly as sent.`;
}

/** A UTC time readable in any mail client: `2026-01-05 10:30 UTC`. */
export function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The one-line title of a message (unescaped). */
export function headline(m: NotificationMessage): string {
  const tool = truncate(oneLine(m.tool), 60);
  if (m.kind === 'approval_execution_failed')
    return `Your approval did not happen: ${tool} failed: ${truncate(oneLine(m.error), 200)}`;
  return m.kind === 'approval_requested' ? `Approval needed: ${tool}` : `FYI: ${tool} ran`;
}

/** The approvers of a failed action, named: `Dana Reviewer and Sue Supervisor` (unescaped). */
export function approverNames(approvers: ReadonlyArray<{ name: string }>): string {
  const names = approvers.map((a) => truncate(oneLine(a.name), 60));
  return names.length <= 1 ? (names[0] ?? 'nobody') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return 'undefined';
  try {
    // undefined for functions and symbols, which JSON cannot hold
    return JSON.stringify(v) ?? `[${typeof v}]`;
  } catch {
    return typeof v === 'bigint' ? v.toString() : `[${typeof v}]`;
  }
}
