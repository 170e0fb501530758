/**
 * What the batch endpoints answer besides the request summaries, declared once with no runtime
 * imports: the server builds it (web/batch-notes.ts, web/batch-outcomes.ts) and the batch page's
 * browser code reads it.
 */

/** Which requests a batch page ticks before the reviewer does: none, or warning-free `approve`-tier ones. */
export type BatchPreselect = 'none' | 'approve';

/** An argument that names what a call acts on (an order, a customer), with the value this request holds. */
export interface BatchSubject {
  /** The argument's name, e.g. `orderId`. */
  key: string;
  /** What people call it, e.g. `order`. */
  label: string;
  value: string | number;
}

/** Something a reviewer must see before approving an item with the others. */
export type BatchWarning =
  /** The same tool with the same arguments as other items of the page: approving all runs it more than once. */
  | { kind: 'same_action'; ids: string[] }
  /** Other items of the page act on the same subject (several refunds of one order). */
  | { kind: 'same_subject'; subject: BatchSubject; ids: string[] }
  /** Invisible or direction-changing characters in the arguments, by name. */
  | { kind: 'hidden'; names: string }
  /** Words mixing Latin with Cyrillic or Greek look-alike letters. */
  | { kind: 'lookalike'; words: string[] };

/** What the page knows about one item beyond its summary. */
export interface BatchItemNote {
  /** The call's amount: the argument its tool names as its amount (default `amount`), when it is a number. */
  amount: number | null;
  /** The argument holding the amount, when there is one. */
  amountKey: string | null;
  subjects: BatchSubject[];
  warnings: BatchWarning[];
  /** Ticked when the page opens (the operator's `preselectUpTo` setting allows it and nothing warns). */
  preselected: boolean;
}

/** Where the page stands in the group's list. */
export interface BatchPageInfo {
  /** 1-based positions of the first and last item shown among all the reviewer can approve (0, 0 when empty). */
  from: number;
  to: number;
  /** How many requests of the group the reviewer can approve now. */
  total: number;
  /** True when the group held more requests than were read: `total` is a lower bound. */
  totalIsLowerBound: boolean;
  /** `after` for the next page, or null on the last one. */
  nextAfter: string | null;
}

/** GET /api/v1/batch, apart from `items` (request summaries). */
export interface BatchAnswerBase {
  group: { by: 'thread'; threadId: string } | { by: 'tool'; tool: string };
  digest: string;
  page: BatchPageInfo;
  preselectUpTo: BatchPreselect;
  /** Per item id. */
  notes: Record<string, BatchItemNote>;
  /** Requests of the group left out, each with why (at most 100 listed). */
  excluded: Array<{ id: string; tool: string; reason: string }>;
  /** How many were left out in all. */
  excludedCount: number;
}

/**
 * Where an approved request's action stands, followed to its end: still waiting for more approvals
 * or to run, running, ran, failed (with the tool's error), or did not run (and why).
 */
export type BatchStage = 'counting' | 'waiting' | 'running' | 'ran' | 'failed' | 'not_run';

/** Why an approved action did not run. */
export type NotRunReason = 'planted' | 'cancelled' | 'expired' | 'rejected' | 'responded' | 'superseded';

/** GET /api/v1/batch/outcomes: one item. */
export interface BatchOutcome {
  id: string;
  status: string;
  stage: BatchStage;
  approvalsReceived: number;
  approvalsRequired: number;
  /** The tool's error, when it failed. */
  error?: string;
  /** Why it did not run, when it did not. */
  notRun?: NotRunReason;
  /** Why it was cancelled, when the log says ("the thread was aborted"). */
  reason?: string;
  /** The request that replaced it, when superseded. */
  supersededBy?: string | null;
}
