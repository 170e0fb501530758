import type { RequestSummary as ServerRequestSummary } from '../../server/schemas.ts';
/** Shapes of the API answers the pages read (see /openapi.json). */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Args = Record<string, Json>;

export interface Resolution {
  type: string;
  by: string;
  at: string;
  message?: string;
  originalArgs?: Args;
  trust?: boolean;
  applied?: string;
}

/**
 * A request as the queue lists it: the API's one declaration (server/schemas.ts), with `args` and
 * the resolution read as JSON values by the browser code.
 */
export type RequestSummary = Omit<ServerRequestSummary, 'args' | 'resolution'> & {
  args: Args;
  resolution: Resolution | null;
};

/** A JSON Schema, as far as the edit form reads it. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: Json[];
  const?: Json;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  default?: Json;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
}

/** GET /api/v1/approvals/:id */
export interface ReviewPacket extends RequestSummary {
  argsSchema: JsonSchema | null;
  escalateTo: { role: string; approvals: number; timeoutMs: number } | null;
  trustable: boolean;
  approvedBy: string[];
  /** Reviewer names by id (voters, who resolved it, a reviewer who proposed it). */
  names: Record<string, string>;
  allowedDecisions: Array<'approve' | 'edit' | 'reject' | 'respond'>;
  /** Each decision the viewer cannot take now, with the code the API would refuse it with. */
  refusals: Partial<Record<'approve' | 'edit' | 'reject' | 'respond', string>>;
  /** Facts the tool computed when the request was first opened (`asOf`). */
  computed: { evidence: Record<string, Json>; asOf: string };
  /** Text a customer or a model wrote (in a sub-agent's thread, the root conversation's customer message). */
  untrusted: { evidence: Record<string, Json> };
  /** How an executed, failed or cancelled request ended: the execution's error, or why it was cancelled. */
  ended: { at: string; error: string | null; reason: string | null } | null;
  /** The request an edit or an escalation handed over to, and the rule that fired for it. */
  replacement: {
    id: string;
    ruleId: string;
    reason: string;
    tier: string;
    requiredRole: string;
    approvalsRequired: number;
    status: string;
  } | null;
  /** Once decided, when it was a planted check: caught (rejected or answered), missed, or null (timed out). */
  plantedCheck?: { caught: boolean | null };
}

/** GET /api/v1/review/next */
export interface NextRequest {
  next: RequestSummary | null;
  /** How many pending requests were passed over, by refusal code. */
  skipped: Partial<Record<'self_approval' | 'duplicate_reviewer' | 'request_expired', number>>;
}

/** POST /api/v1/approvals/:id/decision */
export interface DecisionAnswer {
  request: RequestSummary;
  outcome: 'authorized' | 'rejected' | 'responded' | 'pending' | 'superseded';
  newRequestId?: string;
  plantedCheck?: { caught: boolean | null };
}

/** Events of GET /api/v1/events. */
export interface LiveEvent {
  type: string;
  requestId?: string | null;
  threadId?: string | null;
  tool?: string;
  role?: string;
  status?: string;
  decision?: string;
  applied?: string;
  /** `claim.changed`: who is looking at the request now (null: given back). */
  claim?: { reviewer: string; name: string; since: string; expiresAt: string; auto: boolean } | null;
  /** `note.added`: the note added (its text is read from the API). */
  noteId?: string;
}

/** The signed-in reviewer, from the page. */
export interface Me {
  id: string;
  name: string;
  roles: string[];
  operator: boolean;
}

/** Who is signed in (from the <body> data attributes the server wrote). */
export function me(): Me {
  const d = document.body.dataset;
  return {
    id: d.reviewerId ?? '',
    name: d.reviewerName ?? '',
    roles: (d.roles ?? '').split(',').filter(Boolean),
    operator: d.operator === 'true',
  };
}
