import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DECISION_TYPES,
  allowedDecisions,
  checkDecision,
  MAX_DECISION_MESSAGE,
  type ApprovalRequest,
  type Decision,
  type DecisionType,
  type RequestStatus,
  type Reviewer,
} from './approval.ts';
import { actionHash } from './canonical.ts';
import {
  ActionHashMismatchError,
  AlreadyResolvedError,
  ForbiddenError,
  InterlockError,
  InterlockUsageError,
  RequestExpiredError,
  StaleVersionError,
  ValidationError,
} from './errors.ts';
import { httpStatus } from '../server/errors.ts';

const CREATED = Date.parse('2024-01-15T12:00:00.000Z');
const EXPIRES = CREATED + 30 * 60_000;
const NOW = CREATED + 60_000;
const ARGS = { orderId: 'ORD-999', amount: 850 };
const HASH = actionHash('issue_refund', ARGS);

function request(over: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: 'req_1',
    threadId: 'thr_1',
    checkpointId: 'cp_1',
    toolCallId: 'call_1',
    tool: 'issue_refund',
    args: ARGS,
    actionHash: HASH,
    reason: 'refund over $500',
    ruleId: 'large',
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
    createdAt: CREATED,
    expiresAt: EXPIRES,
    updatedAt: CREATED,
    resolvedAt: null,
    ...over,
  };
}

function decision(over: Partial<Decision> = {}): Decision {
  return { type: 'approve', expectedVersion: 3, actionHash: HASH, ...over };
}

const ALICE: Reviewer = { id: 'alice', name: 'Alice', roles: ['support', 'supervisor'] };
const BOB: Reviewer = { id: 'bob', roles: ['supervisor'] };

/** Run checkDecision and return the error it threw (or undefined). */
function refusal(
  req: ApprovalRequest,
  d: Decision,
  reviewer: Reviewer = ALICE,
  now = NOW,
  priorVoters: readonly string[] = [],
): InterlockError | undefined {
  try {
    checkDecision(req, d, reviewer, now, priorVoters);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof InterlockError, `expected an InterlockError, got ${String(err)}`);
    assert.ok(err instanceof InterlockUsageError, 'a refused decision is a caller mistake');
    return err;
  }
}

function codeOf(
  req: ApprovalRequest,
  d: Decision,
  reviewer: Reviewer = ALICE,
  now = NOW,
  priorVoters: readonly string[] = [],
): string | undefined {
  return refusal(req, d, reviewer, now, priorVoters)?.code;
}

const RESOLVED: RequestStatus[] = [
  'authorized',
  'rejected',
  'responded',
  'expired',
  'cancelled',
  'superseded',
  'executing',
  'executed',
  'failed',
];

describe('allowedDecisions', () => {
  it('a pending request takes all four decisions', () => {
    assert.deepEqual(allowedDecisions({ status: 'pending' }), ['approve', 'edit', 'reject', 'respond']);
    assert.deepEqual(DECISION_TYPES, ['approve', 'edit', 'reject', 'respond']);
  });

  it('any other status takes none', () => {
    for (const status of RESOLVED) assert.deepEqual(allowedDecisions({ status }), [], status);
  });

  it('returns a copy the caller may change', () => {
    const list = allowedDecisions({ status: 'pending' });
    list.pop();
    assert.equal(allowedDecisions({ status: 'pending' }).length, 4);
    assert.equal(DECISION_TYPES.length, 4);
  });
});

describe('checkDecision: accepted decisions', () => {
  it('approve by a reviewer with the role', () => {
    assert.doesNotThrow(() => checkDecision(request(), decision(), ALICE, NOW, []));
  });

  it('approve with trust on a trustable rule', () => {
    assert.doesNotThrow(() => checkDecision(request(), decision({ trust: true }), ALICE, NOW, []));
  });

  it('trust: false is the same as no trust, for any decision', () => {
    assert.doesNotThrow(() =>
      checkDecision(request({ trustable: false }), decision({ type: 'reject', trust: false }), ALICE, NOW, []),
    );
    assert.doesNotThrow(() => checkDecision(request({ trustable: false }), decision({ trust: false }), ALICE, NOW, []));
  });

  it('edit with new args', () => {
    assert.doesNotThrow(() =>
      checkDecision(request(), decision({ type: 'edit', args: { orderId: 'ORD-999', amount: 400 } }), ALICE, NOW, []),
    );
    assert.doesNotThrow(() => checkDecision(request(), decision({ type: 'edit', args: {} }), ALICE, NOW, []));
  });

  it('reject, with or without a message', () => {
    assert.doesNotThrow(() => checkDecision(request(), decision({ type: 'reject' }), ALICE, NOW, []));
    assert.doesNotThrow(() =>
      checkDecision(request(), decision({ type: 'reject', message: 'policy says no' }), ALICE, NOW, []),
    );
  });

  it('respond with a message, even an empty one', () => {
    assert.doesNotThrow(() =>
      checkDecision(request(), decision({ type: 'respond', message: '{"status":"refunded"}' }), ALICE, NOW, []),
    );
    assert.doesNotThrow(() => checkDecision(request(), decision({ type: 'respond', message: '' }), ALICE, NOW, []));
  });

  it('a second, different reviewer on a quorum request', () => {
    const req = request({ approvalsRequired: 2, approvalsReceived: 1 });
    assert.doesNotThrow(() => checkDecision(req, decision(), BOB, NOW, ['alice']));
  });

  it('one millisecond before expiry', () => {
    assert.doesNotThrow(() => checkDecision(request(), decision(), ALICE, EXPIRES - 1, []));
  });
});

describe('checkDecision: each refusal has its own class and code', () => {
  it('already_resolved for every non-pending status', () => {
    for (const status of RESOLVED) {
      const err = refusal(request({ status }), decision());
      assert.ok(err instanceof AlreadyResolvedError, status);
      assert.equal(err.code, 'already_resolved');
      assert.equal(httpStatus(err), 409);
      assert.deepEqual(err.details, { requestId: 'req_1', status });
      assert.match(err.message, new RegExp(`req_1 is already ${status}`));
    }
  });

  it('request_expired at and after the expiry instant', () => {
    for (const now of [EXPIRES, EXPIRES + 1, EXPIRES + 86_400_000]) {
      const err = refusal(request(), decision(), ALICE, now);
      assert.ok(err instanceof RequestExpiredError);
      assert.equal(err.code, 'request_expired');
      assert.equal(httpStatus(err), 410);
      assert.deepEqual(err.details, { requestId: 'req_1', expiresAt: '2024-01-15T12:30:00.000Z' });
      assert.match(err.message, /expired at 2024-01-15T12:30:00\.000Z/);
    }
  });

  it('stale_version when the reviewer saw an older or newer version', () => {
    for (const expectedVersion of [2, 4, 0]) {
      const err = refusal(request(), decision({ expectedVersion }));
      assert.ok(err instanceof StaleVersionError);
      assert.equal(err.code, 'stale_version');
      assert.equal(httpStatus(err), 409);
      assert.deepEqual(err.details, { requestId: 'req_1', expectedVersion, actualVersion: 3 });
      assert.match(err.message, /Reload it/);
    }
  });

  it('action_hash_mismatch when the action is not the one reviewed', () => {
    const seen = actionHash('issue_refund', { orderId: 'ORD-999', amount: 85 });
    const err = refusal(request(), decision({ actionHash: seen }));
    assert.ok(err instanceof ActionHashMismatchError);
    assert.equal(err.code, 'action_hash_mismatch');
    assert.equal(httpStatus(err), 409);
    assert.deepEqual(err.details, { requestId: 'req_1', expectedHash: seen, actualHash: HASH });
    assert.equal(codeOf(request(), decision({ actionHash: '' })), 'action_hash_mismatch');
    assert.equal(codeOf(request(), decision({ actionHash: HASH.toUpperCase() })), 'action_hash_mismatch');
  });

  it('forbidden_role when the reviewer lacks the role', () => {
    const err = refusal(request(), decision(), { id: 'carol', roles: ['support'] });
    assert.ok(err instanceof ForbiddenError);
    assert.equal(err.code, 'forbidden_role');
    assert.equal(httpStatus(err), 403);
    assert.deepEqual(err.details, { requestId: 'req_1', requiredRole: 'supervisor' });
    assert.match(err.message, /is for role "supervisor", which reviewer "carol" does not have/);
    assert.equal(codeOf(request(), decision(), { id: 'dave', roles: [] }), 'forbidden_role');
    assert.equal(
      codeOf(request(), decision(), { id: 'erin', roles: ['Supervisor', 'supervisors'] }),
      'forbidden_role',
      'roles match exactly',
    );
  });

  it('self_approval when the reviewer proposed the action', () => {
    const err = refusal(request({ proposer: 'alice' }), decision());
    assert.ok(err instanceof ForbiddenError);
    assert.equal(err.code, 'self_approval');
    assert.equal(httpStatus(err), 403);
    assert.deepEqual(err.details, { requestId: 'req_1' });
    // Any decision, not only approve.
    assert.equal(codeOf(request({ proposer: 'alice' }), decision({ type: 'reject' })), 'self_approval');
  });

  it('duplicate_reviewer when the reviewer already approved a quorum request', () => {
    const req = request({ approvalsRequired: 2, approvalsReceived: 1 });
    const err = refusal(req, decision(), ALICE, NOW, ['alice']);
    assert.ok(err instanceof ForbiddenError);
    assert.equal(err.code, 'duplicate_reviewer');
    assert.equal(httpStatus(err), 403);
    assert.match(err.message, /needs 2 different reviewers/);
    assert.equal(codeOf(req, decision(), ALICE, NOW, ['bob', 'alice']), 'duplicate_reviewer');
    // Counting once is about approvals: an approver may still reject, respond or edit while it is pending.
    for (const type of ['reject', 'respond', 'edit'] as const) {
      assert.equal(
        codeOf(req, decision({ type, message: 'm', args: { amount: 1 } }), ALICE, NOW, ['alice']),
        undefined,
        type,
      );
    }
  });

  it('invalid_input for an edit without args', () => {
    for (const args of [undefined, null, 'amount=400', 400]) {
      const err = refusal(request(), { ...decision({ type: 'edit' }), args } as unknown as Decision);
      assert.ok(err instanceof ValidationError, String(args));
      assert.equal(err.code, 'invalid_input');
      assert.equal(httpStatus(err), 400);
      assert.deepEqual(err.details.issues, [{ path: 'args', message: 'required for edit' }]);
    }
  });

  it('invalid_input for a respond without a message', () => {
    for (const message of [undefined, null, 42, { text: 'x' }]) {
      const err = refusal(request(), { ...decision({ type: 'respond' }), message } as unknown as Decision);
      assert.ok(err instanceof ValidationError, JSON.stringify(message));
      assert.equal(err.code, 'invalid_input');
      assert.deepEqual(err.details.issues, [{ path: 'message', message: 'required for respond' }]);
    }
  });

  it('decision_not_allowed for trust on a non-trustable rule, or with anything but approve', () => {
    const err = refusal(request({ trustable: false }), decision({ trust: true }));
    assert.ok(err instanceof ForbiddenError);
    assert.equal(err.code, 'decision_not_allowed');
    assert.equal(httpStatus(err), 403);
    assert.deepEqual(err.details, { requestId: 'req_1' });
    for (const type of ['reject', 'respond', 'edit'] as const) {
      const d = decision({ type, trust: true, message: 'm', args: { amount: 1 } });
      assert.equal(codeOf(request(), d), 'decision_not_allowed', type);
    }
  });

  it('errors serialize to { code, message, details } for HTTP clients', () => {
    const err = refusal(request(), decision({ expectedVersion: 1 }));
    assert.ok(err);
    assert.deepEqual(JSON.parse(JSON.stringify(err)), {
      code: 'stale_version',
      message: err.message,
      details: err.details,
    });
    assert.equal(err.name, 'StaleVersionError');
  });
});

describe('checkDecision: order of checks', () => {
  // The order documented on checkDecision: role, self, duplicate (who may decide, before anything about
  // the request's state is told), then status, expiry, version, hash, payload, trust.
  it('reports the first failing check, fixing one problem at a time', () => {
    let req = request({ status: 'rejected', expiresAt: NOW - 1, proposer: 'mallory', trustable: false });
    let d: Decision = { type: 'edit', expectedVersion: 1, actionHash: 'stale', trust: true };
    let reviewer: Reviewer = { id: 'mallory', roles: ['support'] };
    const voters = ['mallory'];
    const seen: (string | undefined)[] = [];
    const step = () => seen.push(codeOf(req, d, reviewer, NOW, voters));

    step();
    reviewer = { ...reviewer, roles: ['supervisor'] };
    step();
    req = { ...req, proposer: 'agent:support' };
    step(); // a prior approver may still edit: resolved and expired, "already resolved" wins, as documented
    req = { ...req, status: 'pending' };
    step();
    req = { ...req, expiresAt: EXPIRES };
    step();
    d = { ...d, expectedVersion: 3 };
    step();
    d = { ...d, actionHash: HASH };
    step();
    d = { ...d, args: { amount: 400 } };
    step();
    d = { ...d, trust: false };
    step();

    assert.deepEqual(seen, [
      'forbidden_role',
      'self_approval',
      'already_resolved',
      'request_expired',
      'stale_version',
      'action_hash_mismatch',
      'invalid_input',
      'decision_not_allowed',
      undefined,
    ]);
  });

  it('a resolved request that has also expired reports already_resolved', () => {
    assert.equal(codeOf(request({ status: 'authorized' }), decision(), ALICE, EXPIRES + 1), 'already_resolved');
  });

  it('an expired request reports request_expired even when the version is stale too', () => {
    assert.equal(codeOf(request(), decision({ expectedVersion: 1 }), ALICE, EXPIRES), 'request_expired');
  });

  it('a stale version is reported before a changed hash (an edit bumps both)', () => {
    assert.equal(codeOf(request(), decision({ expectedVersion: 2, actionHash: 'old' })), 'stale_version');
  });

  it('a respond without message and with trust reports the missing message first', () => {
    assert.equal(codeOf(request(), decision({ type: 'respond', trust: true })), 'invalid_input');
  });

  it('the first failing check always wins, for any combination of problems (property)', () => {
    const ORDER = [
      'forbidden_role',
      'self_approval',
      'duplicate_reviewer',
      'already_resolved',
      'request_expired',
      'stale_version',
      'action_hash_mismatch',
    ] as const;
    fc.assert(
      fc.property(
        fc.record({
          resolved: fc.constantFrom<RequestStatus | null>(null, ...RESOLVED),
          expired: fc.boolean(),
          stale: fc.boolean(),
          hash: fc.boolean(),
          role: fc.boolean(),
          self: fc.boolean(),
          duplicate: fc.boolean(),
          type: fc.constantFrom<DecisionType>(...DECISION_TYPES),
          payload: fc.boolean(),
          trust: fc.boolean(),
          trustable: fc.boolean(),
          version: fc.integer({ min: 1, max: 1000 }),
        }),
        (f) => {
          const req = request({
            status: f.resolved ?? 'pending',
            expiresAt: f.expired ? NOW : NOW + 1,
            version: f.version,
            proposer: f.self ? 'alice' : 'agent:support',
            trustable: f.trustable,
          });
          const d: Decision = {
            type: f.type,
            expectedVersion: f.stale ? f.version + 1 : f.version,
            actionHash: f.hash ? actionHash('issue_refund', {}) : HASH,
            ...(f.payload ? { args: { amount: 1 }, message: 'done' } : {}),
            ...(f.trust ? { trust: true } : {}),
          };
          const reviewer: Reviewer = { id: 'alice', roles: f.role ? ['support'] : ['supervisor'] };
          const failing = [
            f.role,
            f.self,
            f.duplicate && f.type === 'approve',
            f.resolved !== null,
            f.expired,
            f.stale,
            f.hash,
          ];
          const first = failing.indexOf(true);
          let expected: string | undefined;
          if (first >= 0) expected = ORDER[first];
          else if (!f.payload && (f.type === 'edit' || f.type === 'respond')) expected = 'invalid_input';
          else if (f.trust && (f.type !== 'approve' || !f.trustable)) expected = 'decision_not_allowed';
          assert.equal(codeOf(req, d, reviewer, NOW, f.duplicate ? ['alice'] : ['zed']), expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('does not modify the request or the decision', () => {
    const req = request({ approvalsRequired: 2 });
    const d = decision({ type: 'edit', args: { amount: 1 } });
    const before = JSON.stringify([req, d]);
    checkDecision(req, d, ALICE, NOW, ['bob']);
    assert.throws(() => checkDecision(req, d, { id: 'carol', roles: [] }, NOW, []));
    assert.equal(JSON.stringify([req, d]), before);
  });
});

describe('checkDecision: the message, for every caller', () => {
  it('refuses a message that is not text, or longer than the one limit', () => {
    for (const message of [{ text: 'x' } as unknown as string, 'x'.repeat(MAX_DECISION_MESSAGE + 1)])
      assert.throws(() => checkDecision(request(), decision({ type: 'reject', message }), ALICE, NOW, []), {
        code: 'invalid_input',
      });
    assert.throws(
      () =>
        checkDecision(
          request(),
          decision({ type: 'respond', message: 'x'.repeat(MAX_DECISION_MESSAGE + 1) }),
          ALICE,
          NOW,
          [],
        ),
      { code: 'invalid_input' },
    );
    assert.doesNotThrow(() =>
      checkDecision(
        request(),
        decision({ type: 'respond', message: 'x'.repeat(MAX_DECISION_MESSAGE) }),
        ALICE,
        NOW,
        [],
      ),
    );
  });
});
