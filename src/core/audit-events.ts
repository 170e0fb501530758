import type { AuditEventInput, AuditType } from './audit-chain.ts';

/** Why something was refused, whoever refused it (the policy, a decision check, a sign-in, Slack). */
export interface RefusedPayload {
  /** The refusal's code: `blocked`, `duplicate_call_id`, `forbidden_role`, `unknown_reviewer`… */
  code?: string;
  /** The decision that was refused, if one was. */
  decision?: string | null;
  via?: string;
  tool?: string;
  /** The call's arguments, redacted. */
  args?: unknown;
  toolCallId?: string;
  ruleId?: string;
  reason?: string;
}

/**
 * The payload of each kind of audit event (one type per kind, as a worker's event map): what a
 * reader of the log — the timeline, `audit verify`, an auditor — can count on finding. Kinds the
 * engine writes alone keep an open record; kinds composed for callers are typed here.
 */
export interface AuditPayloads {
  interrupted: Record<string, unknown>;
  notified: Record<string, unknown>;
  notify_failed: Record<string, unknown>;
  approved: Record<string, unknown>;
  /** A reviewer's edit (engine), or a `beforeToolCall` hook's rewrite (`by: 'beforeToolCall'`). */
  edited: Record<string, unknown>;
  rejected: Record<string, unknown>;
  responded: Record<string, unknown>;
  expired: Record<string, unknown>;
  escalated: Record<string, unknown>;
  resumed: Record<string, unknown>;
  executed: Record<string, unknown>;
  failed: Record<string, unknown>;
  /** Where the run saw the abort (`boundary`), or who asked for it. */
  aborted: { at?: string; by?: string } & Record<string, unknown>;
  cancelled: Record<string, unknown>;
  trusted: { tool: string; ruleId: string; scope: 'thread' };
  auto_executed: Record<string, unknown>;
  refused: RefusedPayload;
  thread_started: Record<string, unknown>;
  thread_completed: { stopReason: string };
  delegated:
    | { kind: 'subagent'; to: string; childThreadId: string; toolCallId: string; path: readonly string[] }
    | { kind: 'handoff'; from: string; to: string; toolCallId: string; path: readonly string[] }
    | { kind: 'node'; node: string; to: string; childThreadId: string | undefined; path: readonly string[] };
  planted: Record<string, unknown>;
  /** A reviewer created, or a chat identity linked to one (`linked`). */
  reviewer_added:
    | { reviewerId: string; name: string; roles: readonly string[] }
    | { reviewerId: string; linked: Record<string, string> };
  reviewer_revoked: { reviewerId: string };
  /** Personal data read unmasked: where (`cli`, `api`, `web`) and what. */
  raw_viewed: { surface: string; what: string };
  /** An MCP gateway answered a decided call's outcome to its client (`session`: the HTTP session, if any). */
  outcome_delivered: { session?: string };
  /** An internal note: its id and text, as written (src/engine/notes.ts). */
  note_added: { noteId: string; text: string };
}

/** Every kind has a payload type, and every payload type a kind (checked at compile time). */
type _Exhaustive = [AuditType] extends [keyof AuditPayloads]
  ? [keyof AuditPayloads] extends [AuditType]
    ? true
    : never
  : never;
const _exhaustive: _Exhaustive = true;
void _exhaustive;

/** An audit event of kind `K` with its typed payload, before it is chained. */
export type TypedAuditEvent<K extends AuditType = AuditType> = AuditEventInput & {
  type: K;
  payload: AuditPayloads[K];
};
