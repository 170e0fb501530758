/**
 * Interlock: durable human approval for TypeScript AI agents.
 *
 * The root entry point is what an agent developer declares and calls: tools,
 * policies, the agent loop, the engine, the embedded SQLite store, the worker,
 * errors and types. It stays lean: importing it loads no database driver, HTTP
 * framework, mailer or metrics library. The heavier parts have their own entry
 * points (docs/package.md):
 *
 * - `interlock-approvals/postgres` — the PostgreSQL store;
 * - `interlock-approvals/server`   — HTTP API, reviewer web UI, the whole service;
 * - `interlock-approvals/notify`   — Slack, e-mail and webhook channels;
 * - `interlock-approvals/testing`  — scripted models, clocks, scenarios, fake servers.
 *
 * Layers (imports point down only): agent → engine → store → core (docs/architecture.md).
 */

// Every error class: match on `code`, read `details`.
export * from './core/errors.ts';
// Policies and their vocabulary.
export {
  definePolicy,
  TIERS,
  TIMEOUT_DECISIONS,
  HIDDEN_CHARACTERS_MODES,
  type PolicyConfig,
  type Policy,
  type PolicyContext,
  type RuleInput,
  type Rule,
  type ToolPolicy,
  type AggregateSpec,
  type EscalationTarget,
  type Triage,
  type TriageResult,
  type ToolCall,
  type Tier,
  type TimeoutDecision,
  type Verdict,
  type HiddenCharactersMode,
} from './core/policy.ts';
export type { Duration } from './core/duration.ts';
// Requests and decisions.
export {
  DECISION_TYPES,
  REQUEST_STATUSES,
  type ApprovalRequest,
  type Decision,
  type DecisionType,
  type RequestStatus,
  type Resolution,
  type Reviewer,
} from './core/approval.ts';
export { actionHash, type Json } from './core/canonical.ts';
export type { AuditEvent, AuditEventInput, AuditType } from './core/audit-chain.ts';
export type { ChainVerification } from './core/audit-verify.ts';
// For applications that show requests in their own screens: the same masking and hidden-character
// reveal the reviewer surfaces use.
export { redact, redactText } from './core/redact.ts';
export { reveal, revealDeep, findHidden, hasHidden, type HiddenChar } from './core/reveal.ts';

// Storage: the embedded SQLite store, and openStore (PostgreSQL loaded only when asked for).
export type * from './store/types.ts';
export { createSqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite-store.ts';
export { openStore } from './store/open-store.ts';
export { isStorageFull, isStoreUnavailable } from './store/unavailable.ts';

// The engine: gate, pause, decide, expire, execute once, audit.
export * from './engine/index.ts';

// The agent loop and tools.
export * from './agent/index.ts';

// Background work: resume jobs and the timeout sweeper.
export * from './worker/index.ts';

// interlock.config.ts: what `interlock serve` and `interlock worker` load.
export { defineConfig, loadConfig, type InterlockConfig } from './service/config.ts';
