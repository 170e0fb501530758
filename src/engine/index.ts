export { createInterlock, DEFAULT_LEASE_MS, type Interlock, type InterlockOptions } from './interlock.ts';
export type { ClaimEventView, EngineEvent, EngineEventBody, ToolSchemaEntry } from './context.ts';
export type { PublishedTool } from './tool-schemas.ts';
export type { GateContext, GateVerdict } from './gate.ts';
export type { CheckpointInput, PauseItem, PauseResult, ThreadRef } from './pause.ts';
export type { DecisionResult } from './decide.ts';
export type { PreClaim } from './pre-claim.ts';
export { idempotencyKey, type ExecutionInput, type ExecutionOutcome, type ExecuteOptions } from './execute.ts';
export type { RequestStory } from './audit.ts';
export { followRequest, outcomeOf, askedHash, type CallOutcome } from './outcome.ts';
export { notRunText, blockedText, modelTexts, DEFAULT_MODEL_TEXTS, type ModelTexts } from './model-texts.ts';
export type * from './rollup-types.ts';
export { agentOf } from './rollup.ts';

export {
  ThreadExistsError,
  type ThreadOps,
  type LeaseHold,
  type JobOps,
  type AuditOps,
  type ReviewerOps,
  type SessionOps,
  type RequestReads,
} from './state-ops.ts';
export type { ThreadRunner, RunnerResult, RunnerInterrupt } from './runner.ts';
export { auditEvent } from './audit-events.ts';
export type { FactsView, SubjectView } from './related.ts';
export { DEFAULT_CLAIM_MS, type Claim, type ClaimOps } from './claims.ts';
export { MAX_NOTE_LENGTH, type Note, type NoteOps } from './notes.ts';
export type { AttentionOps, AttentionViewer, FailedApproval } from './attention.ts';
export { APPROVAL_FAILED, type ApprovalFailedPayload } from './approval-failed.ts';
