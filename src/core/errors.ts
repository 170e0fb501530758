/**
 * One error hierarchy for Interlock. Every refusal carries a stable `code`
 * (safe to match on in code and in HTTP clients), the ids involved, and a
 * message that says what to do next.
 *
 * Caller mistakes extend {@link InterlockUsageError}; faults of the system
 * (database down, corrupted rows) extend {@link InterlockSystemError}.
 */
export type ErrorDetails = Record<string, unknown>;

/**
 * Every code an Interlock refusal or failure carries: one closed list, so a
 * caller can switch over them and a new code is a deliberate addition here.
 * `<kind>_not_found` codes name what was missing (`approval_request_not_found`).
 */
export const ERROR_CODES = [
  // the caller's input or configuration
  'invalid_input',
  'invalid_config',
  /** An integration's tool ran without passing through Interlock's wrapper or approval hook: wire it as documented. */
  'not_wired',
  /** Two calls of one model step used the same call id, which the framework could not keep apart. */
  'duplicate_call_id',
  'unknown_field',
  'config_exists',
  'payload_too_large',
  'method_not_allowed',
  'not_found',
  // who may do what
  'unauthorized',
  'token_revoked',
  'csrf_failed',
  'forbidden_role',
  'self_approval',
  'duplicate_reviewer',
  'decision_not_allowed',
  /** A reject without a reason, on a rule whose `rejectReasons` say one is required. */
  'reason_required',
  'forbidden',
  'policy_blocked',
  'rate_limited',
  'too_many_streams',
  // the state of a request or thread
  'stale_version',
  'action_hash_mismatch',
  'already_resolved',
  'request_expired',
  'not_authorized',
  'illegal_transition',
  'batch_digest_mismatch',
  'thread_exists',
  'thread_interrupted',
  'wrong_agent',
  /** A sub-agent's or graph node's thread was run on its own; its tree's root runs it. */
  'child_thread',
  /** A planted check was about to run: it tests reviewers and never executes. */
  'planted_check',
  /** A tree names an agent or node this build does not have (a handoff target, a sub-agent, a graph node). */
  'unknown_agent',
  'incompatible_agent_version',
  'lease_lost',
  // the model, the store, the deployment
  'model_bad_tool_input',
  'unsupported_schema_version',
  'store_error',
  'store_unavailable',
  /** The database's disk is full or failing: nothing was written (HTTP 503 with Retry-After). */
  'storage_full',
  'not_ready',
  'not_implemented',
  'delivery_failed',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number] | `${string}_not_found`;

/** Base class: `name` follows the subclass, `code` is stable. */
export class InterlockError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  /** HTTP is the server's business: src/server/errors.ts maps each code to its status. */
  constructor(code: ErrorCode, message: string, opts: { details?: ErrorDetails; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = opts.details ?? {};
  }

  toJSON(): { code: ErrorCode; message: string; details?: ErrorDetails } {
    return Object.keys(this.details).length > 0
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** The caller asked for something that cannot be done; nothing was changed. */
export class InterlockUsageError extends InterlockError {}

/** Interlock or its database failed; the operation may be retried. */
export class InterlockSystemError extends InterlockError {}

/** Input failed validation; `details.issues` lists each field. */
export class ValidationError extends InterlockUsageError {
  constructor(message: string, issues: FieldIssue[] = [], details: ErrorDetails = {}) {
    super('invalid_input', message, { details: { ...details, issues } });
  }
}

/** An edit named fields the tool's schema does not have; they would be dropped, so the edit is refused. */
export class UnknownFieldError extends InterlockUsageError {
  readonly fields: readonly string[];
  constructor(tool: string, fields: readonly string[]) {
    super(
      'unknown_field',
      `The edited arguments of "${tool}" have ${fields.length === 1 ? 'a field' : 'fields'} the tool does not take: ${fields.map((f) => `args.${f}`).join(', ')}. Remove ${fields.length === 1 ? 'it' : 'them'} (nothing else was sent), or ask for the tool to take ${fields.length === 1 ? 'it' : 'them'}.`,
      { details: { tool, fields: fields.map((f) => `args.${f}`) } },
    );
    this.fields = fields;
  }
}

/** A reject without a reason, where the request's rule requires one (its `rejectReasons.required`); nothing changed. */
export class ReasonRequiredError extends InterlockUsageError {
  constructor(requestId: string, ruleId: string, choices: readonly string[]) {
    super(
      'reason_required',
      `Rejecting request ${requestId} needs a reason (its rule "${ruleId}" requires one): give it as the decision's message (--message with the CLI)${choices.length ? `, e.g. one of: ${choices.map((c) => `"${c}"`).join(', ')}` : ''}. The agent reads it.`,
      {
        details: {
          requestId,
          ruleId,
          choices: [...choices],
          issues: [{ path: 'message', message: 'required for reject' }],
        },
      },
    );
  }
}

/** One problem with one field of an input. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** Options or configuration are wrong; raised at creation time, before any side effect. */
export class ConfigError extends InterlockUsageError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('invalid_config', message, { details });
  }
}

/** The thing named does not exist. */
export class NotFoundError extends InterlockUsageError {
  constructor(kind: string, id: string) {
    super(`${kind}_not_found`, `No ${kind.replace('_', ' ')} with id "${id}". Check the id, or list them to find it.`, {
      details: { id },
    });
  }
}

/** The decision was made against an older version of the request. */
export class StaleVersionError extends InterlockUsageError {
  constructor(requestId: string, expected: number, actual: number) {
    super(
      'stale_version',
      `Approval request ${requestId} is at version ${actual}, not ${expected}: it changed since you loaded it. Reload it and decide again.`,
      { details: { requestId, expectedVersion: expected, actualVersion: actual } },
    );
  }
}

/** The action the reviewer saw is not the action on the request. */
export class ActionHashMismatchError extends InterlockUsageError {
  constructor(requestId: string, expected: string, actual: string) {
    super(
      'action_hash_mismatch',
      `The action on approval request ${requestId} is not the one you reviewed (hash ${actual}, you sent ${expected}). Reload it and review the current action.`,
      { details: { requestId, expectedHash: expected, actualHash: actual } },
    );
  }
}

/** The request was already decided, expired or cancelled. */
export class AlreadyResolvedError extends InterlockUsageError {
  constructor(requestId: string, status: string) {
    super('already_resolved', `Approval request ${requestId} is already ${status}; it takes no more decisions.`, {
      details: { requestId, status },
    });
  }
}

/** The request passed its expiry; its timeout default applies instead. */
export class RequestExpiredError extends InterlockUsageError {
  constructor(requestId: string, expiresAt: string) {
    super(
      'request_expired',
      `Approval request ${requestId} expired at ${expiresAt}; its timeout default applies. Ask the agent to propose the action again if it is still needed.`,
      { details: { requestId, expiresAt } },
    );
  }
}

/** The reviewer may not take this decision. */
export class ForbiddenError extends InterlockUsageError {
  constructor(
    code: 'forbidden_role' | 'self_approval' | 'duplicate_reviewer' | 'decision_not_allowed' | 'forbidden',
    message: string,
    details: ErrorDetails = {},
  ) {
    super(code, message, { details });
  }
}

/** The policy blocks the action outright. */
export class PolicyBlockedError extends InterlockUsageError {
  constructor(tool: string, reason: string) {
    super('policy_blocked', `Tool "${tool}" is blocked by policy: ${reason}`, {
      details: { tool, reason },
    });
  }
}

/** A persisted document has a schema version this build cannot read. */
export class SchemaVersionError extends InterlockSystemError {
  constructor(kind: string, version: unknown, supported: readonly number[], how = 'written') {
    super(
      'unsupported_schema_version',
      `This ${kind} was ${how} with schema version ${String(version)}; this build reads ${supported.join(', ')}. Upgrade Interlock to read it.`,
      { details: { kind, version, supported } },
    );
  }
}

/** The database failed; the operation was rolled back. */
export class StoreError extends InterlockSystemError {
  constructor(message: string, cause?: unknown) {
    super('store_error', message, { cause });
  }
}
