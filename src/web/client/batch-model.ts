import type { BatchAnswerBase, BatchItemNote, BatchOutcome, BatchSubject } from '../batch-types.ts';
import type { RequestSummary } from './types.ts';

/**
 * The batch page's data and the arithmetic over it (no DOM): what the API answered, what the
 * reviewer ticked, and the sums the confirm step and the outcome line put in words.
 */

/** GET /api/v1/batch (declared in web/batch-types.ts, with the request summaries). */
export type Batch = BatchAnswerBase & { items: RequestSummary[] };

/** One item of POST /api/v1/batch/decision's answer. */
export type ItemResult =
  | { id: string; ok: true; outcome: string; status: string; approvalsReceived: number; approvalsRequired: number }
  | {
      id: string;
      ok: false;
      /** The refusal; `details.status` is where the request stands now (an `already_resolved` refusal). */
      error: { code: string; message: string; status: number; details?: Record<string, unknown> };
    };

/** POST /api/v1/batch/decision. */
export interface BatchResult {
  digest: string;
  skipped: string[];
  results: ItemResult[];
}

/** Everything the page shows, in one place. */
export interface BatchState {
  batch: Batch | undefined;
  result: BatchResult | undefined;
  /** Where each sent item stands now (GET /api/v1/batch/outcomes), refreshed by live events. */
  outcomes: Map<string, BatchOutcome>;
  /** Ids ticked for approval. */
  picked: Set<string>;
  busy: boolean;
  notices: string[];
}

const NO_NOTE: BatchItemNote = { amount: null, amountKey: null, subjects: [], warnings: [], preselected: false };

/** The note of an item (an empty one if the server sent none). */
export function noteOf(b: Batch, id: string): BatchItemNote {
  return b.notes[id] ?? NO_NOTE;
}

/** A number as people read it here: `69,270`, `12.5`. */
export function amountText(n: number): string {
  return n.toLocaleString(undefined, { maximumFractionDigits: 2 });
}

/** `1, 2, 3 and 4`; past `max` numbers, `1, 2, 3 … and 21 more`. */
export function listText(parts: ReadonlyArray<string | number>, max = 8): string {
  const s = parts.map(String);
  if (s.length > max) return `${s.slice(0, max).join(', ')} … and ${s.length - max} more`;
  return s.length < 2 ? (s[0] ?? '') : `${s.slice(0, -1).join(', ')} and ${s[s.length - 1]}`;
}

/** Requests on one subject among a set of items, with their amounts summed. */
export interface SubjectGroup {
  subject: BatchSubject;
  ids: string[];
  tools: string[];
  /** The sum of the amounts of those that have one, or null when none has. */
  amount: number | null;
}

/** One key per subject (argument name and value). */
export function subjectKey(s: BatchSubject): string {
  return `${s.key}\n${typeof s.value}\n${String(s.value)}`;
}

/** The items' subjects (an order, a customer) shared by two or more of them, the biggest first. */
export function subjectGroups(b: Batch, items: readonly RequestSummary[]): SubjectGroup[] {
  const by = new Map<string, SubjectGroup>();
  for (const r of items) {
    const note = noteOf(b, r.id);
    for (const s of note.subjects) {
      const key = subjectKey(s);
      const g = by.get(key) ?? { subject: s, ids: [], tools: [], amount: null };
      g.ids.push(r.id);
      if (!g.tools.includes(r.tool)) g.tools.push(r.tool);
      if (note.amount !== null) g.amount = (g.amount ?? 0) + note.amount;
      by.set(key, g);
    }
  }
  return [...by.values()]
    .filter((g) => g.ids.length > 1)
    .sort((x, y) => y.ids.length - x.ids.length || (y.amount ?? 0) - (x.amount ?? 0));
}

/** `24 issue_refund requests on order ORD-7, 69,270 in all`. */
export function subjectGroupText(g: SubjectGroup): string {
  const what = g.tools.length === 1 ? `${g.tools[0]} requests` : 'requests';
  const sum = g.amount === null ? '' : `, ${amountText(g.amount)} in all`;
  return `${g.ids.length} ${what} on ${g.subject.label} ${String(g.subject.value)}${sum}`;
}

/** Groups of items that are the same action (same tool and arguments), by id in page order. */
export function sameActionGroups(items: readonly RequestSummary[]): Array<{ tool: string; ids: string[] }> {
  const by = new Map<string, { tool: string; ids: string[] }>();
  for (const r of items) {
    const key = `${r.tool}\n${r.actionHash}`;
    const g = by.get(key) ?? { tool: r.tool, ids: [] };
    g.ids.push(r.id);
    by.set(key, g);
  }
  return [...by.values()].filter((g) => g.ids.length > 1);
}

/** Item numbers by id as the page shows them: positions among all the group's requests (101, 102… on page 2). */
export function itemNumbers(b: Batch): Map<string, number> {
  return new Map(b.items.map((r, i) => [r.id, b.page.from + i]));
}

/** The sum of the amounts of `items` that have one, and how many have one. */
export function totalAmount(b: Batch, items: readonly RequestSummary[]): { sum: number; counted: number } {
  let sum = 0;
  let counted = 0;
  for (const r of items) {
    const a = noteOf(b, r.id).amount;
    if (a !== null) {
      sum += a;
      counted++;
    }
  }
  return { sum, counted };
}
