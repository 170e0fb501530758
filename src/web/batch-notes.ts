import { describeHidden, findHiddenDeep, findMixedScriptDeep, type ApprovalRequest } from '../core/index.ts';
import type { BatchItemNote, BatchPreselect, BatchSubject, BatchWarning } from './batch-types.ts';

/** What a tool declares about its arguments, as far as a batch reads it. */
export interface ToolHints {
  /** Arguments naming what the call acts on (`['orderId', 'customerId']`). */
  subject?: readonly string[];
  /** The argument holding the call's amount. */
  amount?: string;
}

/** Arguments taken as a call's subject when its tool declares none. */
const DEFAULT_SUBJECTS = ['orderId', 'customerId', 'accountId', 'to'];
/** Arguments taken as a call's amount when its tool declares none: the first that holds a number. */
const DEFAULT_AMOUNTS = ['amount', 'total', 'value'];
/** What people call a subject argument. */
const LABELS: Record<string, string> = {
  orderId: 'order',
  customerId: 'customer',
  accountId: 'account',
  subscriptionId: 'subscription',
  to: 'recipient',
};

/** `orderId` → `order`; an argument without a known name keeps its own. */
export function subjectLabel(key: string): string {
  return LABELS[key] ?? key;
}

function amountOf(
  r: ApprovalRequest,
  hints: ToolHints | undefined,
): { amount: number | null; amountKey: string | null } {
  for (const key of hints?.amount ? [hints.amount] : DEFAULT_AMOUNTS) {
    const v = r.args[key];
    if (typeof v === 'number' && Number.isFinite(v)) return { amount: v, amountKey: key };
  }
  return { amount: null, amountKey: null };
}

function subjectsOf(r: ApprovalRequest, hints: ToolHints | undefined): BatchSubject[] {
  const out: BatchSubject[] = [];
  for (const key of hints?.subject ?? DEFAULT_SUBJECTS) {
    const value = r.args[key];
    if ((typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value)))
      out.push({ key, label: subjectLabel(key), value });
  }
  return out;
}

/** Ids by a key, keeping only keys shared by more than one item. */
function groups(items: readonly ApprovalRequest[], keysOf: (r: ApprovalRequest) => string[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const r of items) for (const k of keysOf(r)) by.set(k, [...(by.get(k) ?? []), r.id]);
  for (const [k, ids] of by) if (ids.length < 2) by.delete(k);
  return by;
}

const subjectKey = (s: BatchSubject) => `${s.key}\n${typeof s.value}\n${String(s.value)}`;

/**
 * What a batch page shows beside each item, computed once on the server: its amount and subjects
 * (from what its tool declares, else `amount` and `orderId`/`customerId`/`accountId`/`to`), the
 * warnings that make approving it with the others a risk — the same action twice, other items on
 * the same subject, hidden or look-alike characters — and whether it starts ticked under the
 * operator's `preselect` setting (only a warning-free `approve`-tier item, and only under `approve`).
 */
export function batchNotes(
  items: readonly ApprovalRequest[],
  hintsOf: (tool: string) => ToolHints | undefined,
  preselect: BatchPreselect,
): Record<string, BatchItemNote> {
  const subjects = new Map(items.map((r) => [r.id, subjectsOf(r, hintsOf(r.tool))]));
  const sameAction = groups(items, (r) => [`${r.tool}\n${r.actionHash}`]);
  const sameSubject = groups(items, (r) => (subjects.get(r.id) ?? []).map(subjectKey));
  const notes: Record<string, BatchItemNote> = {};
  for (const r of items) {
    const warnings: BatchWarning[] = [];
    const others = (ids: readonly string[]) => ids.filter((id) => id !== r.id);
    const twins = sameAction.get(`${r.tool}\n${r.actionHash}`);
    if (twins) warnings.push({ kind: 'same_action', ids: others(twins) });
    for (const s of subjects.get(r.id) ?? []) {
      const ids = sameSubject.get(subjectKey(s));
      if (ids) warnings.push({ kind: 'same_subject', subject: s, ids: others(ids) });
    }
    const hidden = findHiddenDeep(r.args);
    if (hidden.length) warnings.push({ kind: 'hidden', names: describeHidden(hidden) });
    const words = findMixedScriptDeep(r.args);
    if (words.length) warnings.push({ kind: 'lookalike', words });
    notes[r.id] = {
      ...amountOf(r, hintsOf(r.tool)),
      subjects: subjects.get(r.id) ?? [],
      warnings,
      preselected: preselect === 'approve' && r.tier === 'approve' && warnings.length === 0,
    };
  }
  return notes;
}
