import {
  actionHash,
  editOutcome,
  transition,
  type ApprovalRequest,
  type AuditEventInput,
  type Decision,
  type Reviewer,
} from '../core/index.ts';
import type { StoreTx } from '../store/types.ts';
import type { EngineContext } from './context.ts';
import type { GateVerdict } from './gate.ts';
import { newRequest } from './pause.ts';

/** What one decision does to its locked request, before anything is written (see {@link decide}). */
export interface Applied {
  /** The request's next row, from core's state machine. */
  next: ApprovalRequest;
  outcome: 'authorized' | 'rejected' | 'responded' | 'pending' | 'superseded';
  audit: AuditEventInput[];
  /** A new request the decision opened (an edit that raised the tier, or a quorum's edited action). */
  created?: ApprovalRequest;
}

/** The edited arguments, validated and re-gated before the transaction. */
export interface EditedCall {
  args: Record<string, unknown>;
  verdict: GateVerdict;
}

const actorOf = (r: Reviewer) => `reviewer:${r.id}`;

function baseOf(req: ApprovalRequest, reviewer: Reviewer) {
  return { actor: actorOf(reviewer), threadId: req.threadId, requestId: req.id };
}

function vote(tx: StoreTx, req: ApprovalRequest, reviewer: Reviewer, type: Decision['type'], now: number) {
  return tx.insertVote({ requestId: req.id, reviewer: reviewer.id, type, version: req.version, createdAt: now });
}

/** An approval: counted toward the quorum; with `trust`, the thread's later calls of the rule run alone. */
export async function applyApprove(
  tx: StoreTx,
  req: ApprovalRequest,
  decision: Decision,
  reviewer: Reviewer,
  now: number,
): Promise<Applied> {
  await vote(tx, req, reviewer, 'approve', now);
  const next = transition(req, { type: 'approve', by: reviewer.id, ...(decision.trust ? { trust: true } : {}) }, now);
  const done = next.status === 'authorized';
  const base = baseOf(req, reviewer);
  const audit: AuditEventInput[] = [
    {
      ...base,
      type: 'approved',
      payload: {
        version: req.version,
        actionHash: req.actionHash,
        approvals: next.approvalsReceived,
        required: req.approvalsRequired,
        trust: decision.trust === true,
      },
    },
  ];
  // A planted check grants nothing: trust on it would lower the tier of real calls.
  if (done && decision.trust && !req.planted) {
    await tx.insertTrust({
      threadId: req.threadId,
      tool: req.tool,
      ruleId: req.ruleId,
      reviewer: reviewer.id,
      requestId: req.id,
      createdAt: now,
    });
    audit.push({ ...base, type: 'trusted', payload: { tool: req.tool, ruleId: req.ruleId, scope: 'thread' } });
  }
  return { next, outcome: done ? 'authorized' : 'pending', audit };
}

/** A rejection, or an answer in place of the tool's result (`respond`). */
export async function applyAnswer(
  tx: StoreTx,
  req: ApprovalRequest,
  decision: Decision & { type: 'reject' | 'respond' },
  reviewer: Reviewer,
  now: number,
): Promise<Applied> {
  const message = decision.message;
  const next = transition(
    req,
    { type: decision.type, by: reviewer.id, ...(message === undefined ? {} : { message }) },
    now,
  );
  await vote(tx, req, reviewer, decision.type, now);
  const audit: AuditEventInput[] = [
    {
      ...baseOf(req, reviewer),
      type: decision.type === 'reject' ? 'rejected' : 'responded',
      payload: { version: req.version, message: message ?? null },
    },
  ];
  return { next, outcome: decision.type === 'reject' ? 'rejected' : 'responded', audit };
}

/**
 * An edit: authorized as edited on this request, or a new proposal others decide (core's
 * {@link editOutcome}). The editor proposed what they wrote, so they may not also approve a new request.
 */
export async function applyEdit(
  ctx: EngineContext,
  tx: StoreTx,
  req: ApprovalRequest,
  edited: EditedCall,
  reviewer: Reviewer,
  now: number,
): Promise<Applied> {
  const { args, verdict } = edited;
  const hash = actionHash(req.tool, args);
  const what = editOutcome(req, verdict);
  const base = baseOf(req, reviewer);
  const audit: AuditEventInput[] = [
    {
      ...base,
      type: 'edited',
      payload: {
        version: req.version,
        originalArgs: req.args,
        args,
        actionHash: hash,
        newTier: what.kind === 'new_request' && what.raised ? verdict.tier : req.tier,
      },
    },
  ];
  await vote(tx, req, reviewer, 'edit', now);
  if (what.kind === 'in_place') {
    // The editor approved what they wrote: it counts, so the card does not read "0/1 approvals" once it ran.
    return {
      next: transition(req, { type: 'edit', by: reviewer.id, args, actionHash: hash }, now),
      outcome: 'authorized',
      audit,
    };
  }
  const created = newRequest(ctx, {
    threadId: req.threadId,
    checkpointId: req.checkpointId,
    proposer: reviewer.id,
    item: {
      call: { tool: req.tool, args },
      ...(req.toolCallId ? { toolCallId: req.toolCallId } : {}),
      verdict: what.verdict,
      evidence: req.evidence,
      app: req.context,
    },
    now,
    parentId: req.id,
  });
  if (req.planted) created.planted = true;
  // A quorum's edited action: the editor has approved it, and that counts toward the new quorum.
  if (what.editorCounts) created.approvalsReceived = 1;
  const next = transition(
    req,
    { type: 'supersede', by: reviewer.id, newRequestId: created.id, cause: 'edit', originalArgs: req.args },
    now,
  );
  audit.push({
    ...base,
    type: 'escalated',
    payload: { from: req.tier, to: created.tier, newRequestId: created.id, reason: what.reason },
  });
  return { next, outcome: 'superseded', audit, created };
}
