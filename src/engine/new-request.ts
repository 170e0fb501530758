import { actionHash, newId, redact, type ApprovalRequest, type ToolCall, type Verdict } from '../core/index.ts';
import type { EngineContext } from './context.ts';

/** One gated call to pause on. */
export interface PauseItem {
  call: ToolCall;
  toolCallId?: string;
  verdict: Verdict;
  /** Untrusted material for the reviewer (customer message, model summary); redacted before storage. */
  evidence?: Record<string, unknown>;
  /** Application context the policy saw; kept so an edit re-runs the policy the same way. */
  app?: Record<string, unknown>;
  /** Id to give the request, when the caller's checkpoint must refer to it (see `newId('apr')`). */
  requestId?: string;
}

/** Build a pending request from a verdict. */
export function newRequest(
  ctx: EngineContext,
  input: {
    threadId: string;
    checkpointId: string | null;
    proposer: string;
    item: PauseItem;
    now: number;
    parentId?: string | null;
  },
): ApprovalRequest {
  const { item, now } = input;
  const v = item.verdict;
  return {
    id: item.requestId ?? newId<string>('apr'),
    threadId: input.threadId,
    checkpointId: input.checkpointId,
    toolCallId: item.toolCallId ?? null,
    tool: item.call.tool,
    args: item.call.args,
    actionHash: actionHash(item.call.tool, item.call.args),
    reason: v.reason,
    ruleId: v.ruleId,
    tier: v.tier,
    role: v.role ?? ctx.fallbackRole,
    approvalsRequired: Math.max(1, v.approvalsRequired),
    approvalsReceived: 0,
    version: 1,
    status: 'pending',
    proposer: input.proposer,
    evidence: redact(item.evidence ?? {}),
    context: item.app ?? {},
    onTimeout: v.onTimeout,
    escalateTo: v.escalateTo,
    trustable: v.trustable,
    ...(v.decisions ? { decisions: v.decisions } : {}),
    ...(v.rejectReasons ? { rejectReasons: v.rejectReasons } : {}),
    resolution: null,
    parentId: input.parentId ?? null,
    supersededBy: null,
    createdAt: now,
    expiresAt: now + v.timeoutMs,
    updatedAt: now,
    resolvedAt: null,
  };
}
