import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRequest, RequestStatus } from './approval.ts';
import { actionHash } from './canonical.ts';
import { IllegalTransitionError, PlantedCheckError, TRANSITIONS, transition, type RequestEvent } from './transition.ts';

const T0 = Date.parse('2026-01-15T12:00:00.000Z');
const NOW = T0 + 60_000;
const ARGS = { orderId: 'ORD-1', amount: 850 };

function request(over: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: 'req_1',
    threadId: 'th_1',
    checkpointId: null,
    toolCallId: 'call_1',
    tool: 'issue_refund',
    args: ARGS,
    actionHash: actionHash('issue_refund', ARGS),
    reason: 'refund over 500',
    ruleId: 'big-refund',
    tier: 'approve',
    role: 'supervisor',
    approvalsRequired: 1,
    approvalsReceived: 0,
    version: 3,
    status: 'pending',
    proposer: 'agent:support',
    evidence: {},
    context: {},
    onTimeout: 'reject',
    escalateTo: null,
    trustable: true,
    resolution: null,
    parentId: null,
    supersededBy: null,
    createdAt: T0,
    expiresAt: T0 + 3_600_000,
    updatedAt: T0,
    resolvedAt: null,
    ...over,
  };
}

const EDITED = { orderId: 'ORD-1', amount: 300 };
const EVENTS: RequestEvent[] = [
  { type: 'approve', by: 'rev_a' },
  { type: 'reject', by: 'rev_a', message: 'no' },
  { type: 'respond', by: 'rev_a', message: 'done by hand' },
  { type: 'edit', by: 'rev_a', args: EDITED, actionHash: actionHash('issue_refund', EDITED) },
  { type: 'supersede', by: 'rev_a', newRequestId: 'req_2', cause: 'edit', originalArgs: ARGS },
  { type: 'expire', by: 'system', applied: 'reject' },
  { type: 'cancel' },
  { type: 'start_execution' },
  { type: 'finish_execution', ok: true },
  { type: 'release_execution' },
];
const STATUSES = Object.keys(TRANSITIONS) as RequestStatus[];

/** The status each legal (state, event) pair leads to; anything missing must be refused. */
const EXPECTED: Partial<Record<RequestStatus, Partial<Record<RequestEvent['type'], RequestStatus>>>> = {
  pending: {
    approve: 'authorized',
    reject: 'rejected',
    respond: 'responded',
    edit: 'authorized',
    supersede: 'superseded',
    expire: 'expired',
    cancel: 'cancelled',
  },
  authorized: { start_execution: 'executing', finish_execution: 'executed', cancel: 'cancelled' },
  executing: { finish_execution: 'executed', release_execution: 'authorized' },
};

describe('transition: every state × event', () => {
  for (const status of STATUSES) {
    for (const event of EVENTS) {
      const want = EXPECTED[status]?.[event.type];
      it(`${status} + ${event.type} → ${want ?? 'refused'}`, () => {
        const req = request({ status });
        const before = structuredClone(req);
        if (want === undefined) {
          assert.throws(
            () => transition(req, event, NOW),
            (err: unknown) => {
              assert.ok(err instanceof IllegalTransitionError);
              assert.equal(err.code, 'illegal_transition');
              assert.match(err.message, new RegExp(`is ${status}`));
              return true;
            },
          );
        } else {
          const next = transition(req, event, NOW);
          assert.equal(next.status, want);
          assert.equal(next.version, req.version + 1, 'every change bumps the version');
          assert.equal(next.updatedAt, NOW);
        }
        assert.deepEqual(req, before, 'the input is never mutated');
      });
    }
  }
});

describe('transition: the planted-check guard', () => {
  it('a planted check may be decided like any request, but never starts or finishes an execution', () => {
    const approved = transition(request({ planted: true }), { type: 'approve', by: 'rev_a' }, NOW);
    assert.equal(approved.status, 'authorized', 'reviewers cannot tell it apart: their decision is recorded');
    for (const event of [{ type: 'start_execution' }, { type: 'finish_execution', ok: true }] as const)
      assert.throws(
        () => transition(approved, event, NOW),
        (e: unknown) => e instanceof PlantedCheckError && e.code === 'planted_check',
      );
    assert.equal(transition(approved, { type: 'cancel' }, NOW).status, 'cancelled');
  });
});

describe('transition: what each change records', () => {
  it('an approval short of the quorum keeps the request pending and counts it', () => {
    const next = transition(request({ approvalsRequired: 2 }), { type: 'approve', by: 'rev_a' }, NOW);
    assert.equal(next.status, 'pending');
    assert.equal(next.approvalsReceived, 1);
    assert.equal(next.resolution, null);
    assert.equal(next.resolvedAt, null);
  });

  it('the approval that meets the quorum authorizes and records who, when and trust', () => {
    const next = transition(
      request({ approvalsRequired: 2, approvalsReceived: 1 }),
      { type: 'approve', by: 'rev_b', trust: true },
      NOW,
    );
    assert.equal(next.status, 'authorized');
    assert.equal(next.approvalsReceived, 2);
    assert.deepEqual(next.resolution, { type: 'approve', by: 'rev_b', at: NOW, trust: true });
    assert.equal(next.resolvedAt, NOW);
  });

  it('an edit in place authorizes the new arguments and keeps the originals in the resolution', () => {
    const hash = actionHash('issue_refund', EDITED);
    const next = transition(request(), { type: 'edit', by: 'rev_a', args: EDITED, actionHash: hash }, NOW);
    assert.deepEqual(next.args, EDITED);
    assert.equal(next.actionHash, hash);
    assert.deepEqual(next.resolution, { type: 'edit', by: 'rev_a', at: NOW, originalArgs: ARGS });
    assert.equal(next.approvalsReceived, 1, 'the edit counts as the editor’s approval');
  });

  it('a supersede points at the new request; a timeout escalation records the escalate default', () => {
    const byEdit = transition(request(), { type: 'supersede', by: 'rev_a', newRequestId: 'req_2', cause: 'edit' }, NOW);
    assert.equal(byEdit.supersededBy, 'req_2');
    assert.deepEqual(byEdit.resolution, { type: 'edit', by: 'rev_a', at: NOW, originalArgs: ARGS });
    const byTimeout = transition(
      request(),
      { type: 'supersede', by: 'system', newRequestId: 'req_3', cause: 'timeout' },
      NOW,
    );
    assert.deepEqual(byTimeout.resolution, { type: 'timeout', by: 'system', at: NOW, applied: 'escalate' });
  });

  it('a timeout applies the documented default: approve authorizes, reject and abort expire', () => {
    assert.equal(transition(request(), { type: 'expire', by: 'system', applied: 'approve' }, NOW).status, 'authorized');
    assert.equal(transition(request(), { type: 'expire', by: 'system', applied: 'reject' }, NOW).status, 'expired');
    const aborted = transition(request(), { type: 'expire', by: 'system', applied: 'abort' }, NOW);
    assert.equal(aborted.status, 'expired');
    assert.deepEqual(aborted.resolution, { type: 'timeout', by: 'system', at: NOW, applied: 'abort' });
  });

  it('cancelling an authorized request keeps the decision that authorized it', () => {
    const authorized = transition(request(), { type: 'approve', by: 'rev_a' }, NOW);
    const cancelled = transition(authorized, { type: 'cancel' }, NOW + 5);
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(cancelled.resolution, authorized.resolution);
    assert.equal(cancelled.resolvedAt, NOW);
  });

  it('a failed execution is final', () => {
    const failed = transition(request({ status: 'executing' }), { type: 'finish_execution', ok: false }, NOW);
    assert.equal(failed.status, 'failed');
    assert.throws(() => transition(failed, { type: 'start_execution' }, NOW), IllegalTransitionError);
  });
});
