/**
 * The store conformance suite: every backend runs these tests unchanged.
 * Each backend gets one database for the whole suite, so every test names its
 * rows with fresh ids (and its own tools, roles and job kinds) and never
 * depends on what other tests left behind. A second `backend.create()` opens
 * the same database again: a second process.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ApprovalRequest } from '../core/approval.ts';
import { auditChainFor, type AuditEventInput } from '../core/audit-chain.ts';
import { AuditVerifier } from '../core/audit-verify.ts';
import { actionHash } from '../core/canonical.ts';
import { ValidationError, type InterlockError } from '../core/errors.ts';
import { LATEST_MIGRATION } from './sql/migrate.ts';
import { allBackends } from '../testing/backends.ts';
import type { ExecutionRow, JobRow, Store, StoreTx, ThreadRow } from './types.ts';

/** A fixed clock origin; tests pass times explicitly. Expiries before it belong to the claimExpired test. */
const T = 1_700_000_000_000;
const MINUTE = 60_000;

let counter = 0;
/** An id no other test (or earlier run against the same database) uses. */
function uid(prefix: string): string {
  counter++;
  return `${prefix}_${randomBytes(5).toString('hex')}_${String(counter).padStart(4, '0')}`;
}

function thread(overrides: Partial<ThreadRow> = {}): ThreadRow {
  return {
    id: uid('thr'),
    agent: 'support-bot',
    agentVersion: '1.0.0',
    status: 'running',
    messageCount: 0,
    abortRequested: false,
    metadata: { customer: 'c-1', nested: { tags: ['a', 'b'], score: 0.5 } },
    leaseOwner: null,
    leaseUntil: null,
    createdAt: T,
    updatedAt: T,
    ...overrides,
  };
}

/** A request with every optional field filled, so a round trip proves each column. */
function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  const args = { orderId: 'o-42', amount: 250.5, note: 'Grüße — 👍 <b>x</b>', lines: [{ sku: 'A', qty: 2 }] };
  return {
    id: uid('req'),
    threadId: uid('thr'),
    checkpointId: uid('cp'),
    toolCallId: uid('call'),
    tool: 'refund',
    args,
    actionHash: actionHash('refund', args),
    reason: 'Refunds above 100 need finance',
    ruleId: 'refund-large',
    tier: 'escalate',
    role: 'finance',
    approvalsRequired: 2,
    approvalsReceived: 1,
    version: 3,
    status: 'pending',
    proposer: 'agent:support-bot',
    evidence: { ticket: 'T-9', history: [1, 2, 3], flagged: true, nothing: null },
    context: { customer: { id: 'c-1', tier: 'gold' }, channel: 'email' },
    onTimeout: 'escalate',
    escalateTo: { role: 'cfo', approvals: 1, timeoutMs: 3_600_000 },
    trustable: true,
    resolution: {
      type: 'edit',
      by: 'rev-1',
      at: T + 5,
      message: 'lowered',
      originalArgs: { amount: 999 },
      trust: false,
    },
    parentId: uid('req'),
    supersededBy: uid('req'),
    createdAt: T,
    expiresAt: T + 60 * MINUTE,
    updatedAt: T + 5,
    resolvedAt: T + 6,
    ...overrides,
  };
}

/** A request as the engine first writes it: pending, nothing optional set. */
function pendingRequest(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return request({
    checkpointId: null,
    toolCallId: null,
    escalateTo: null,
    trustable: false,
    resolution: null,
    parentId: null,
    supersededBy: null,
    approvalsRequired: 1,
    approvalsReceived: 0,
    version: 1,
    resolvedAt: null,
    updatedAt: T,
    ...overrides,
  });
}

function execution(key: string, tool: string, owner: string, leaseUntil: number, args: Record<string, unknown> = {}) {
  return {
    key,
    requestId: null,
    threadId: null,
    tool,
    args,
    actionHash: actionHash(tool, args),
    leaseOwner: owner,
    leaseUntil,
    createdAt: T,
  };
}

function job(
  kind: string,
  runAt: number,
  overrides: Partial<Pick<JobRow, 'id' | 'threadId' | 'requestId' | 'payload'>> = {},
) {
  return {
    id: uid('job'),
    kind,
    threadId: null,
    requestId: null,
    payload: { n: 1 },
    runAt,
    createdAt: T,
    ...overrides,
  };
}

function ids(rows: ReadonlyArray<{ id: string }>): string[] {
  return rows.map((r) => r.id);
}

for (const backend of allBackends()) {
  describe(backend.name, () => {
    let store: Store;
    before(async () => {
      store = await backend.create();
    });
    after(() => backend.destroy());

    describe('migrations', () => {
      it('migrate() again is a no-op that keeps the data', async () => {
        const t = thread();
        await store.insertThread(t);
        await store.migrate();
        await store.migrate();
        assert.deepEqual(await store.getThread(t.id), t);
      });

      it('two stores migrating one fresh database at once both succeed', async () => {
        const fresh = allBackends().find((b) => b.name === backend.name)!;
        try {
          const [a, b] = await Promise.all([fresh.create(), fresh.create()]);
          const t = thread();
          await a.insertThread(t);
          assert.deepEqual(await b.getThread(t.id), t);
          await Promise.all([a.migrate(), b.migrate()]);
        } finally {
          await fresh.destroy();
        }
      });

      it('migrate() refuses a database a newer build migrated, and changes nothing', async () => {
        const fresh = allBackends().find((b) => b.name === backend.name)!;
        try {
          const s = await fresh.create();
          const future = LATEST_MIGRATION + 1;
          await s.unsafeQuery(
            `INSERT INTO il_migrations (id, name, applied_at) VALUES (${future}, 'from_the_future', 0)`,
          );
          await assert.rejects(s.migrate(), (err: InterlockError) => {
            assert.equal(err.code, 'unsupported_schema_version');
            assert.match(err.message, new RegExp(`schema version ${future}.*Upgrade Interlock`));
            return true;
          });
          const rows = await s.unsafeQuery(`SELECT COUNT(*) AS n FROM il_migrations`);
          assert.equal(Number(rows[0]?.n), LATEST_MIGRATION + 1);
        } finally {
          await fresh.destroy();
        }
      });
    });

    describe('threads, messages and checkpoints', () => {
      it('round-trips a thread and applies a patch', async () => {
        const t = thread();
        await store.insertThread(t);
        assert.deepEqual(await store.getThread(t.id), t);
        assert.equal(await store.getThread(uid('thr')), undefined);

        await store.updateThread(
          t.id,
          { status: 'interrupted', messageCount: 4, abortRequested: true, metadata: { x: [1] }, agentVersion: '1.1.0' },
          T + 10,
        );
        assert.deepEqual(await store.getThread(t.id), {
          ...t,
          status: 'interrupted',
          messageCount: 4,
          abortRequested: true,
          metadata: { x: [1] },
          agentVersion: '1.1.0',
          updatedAt: T + 10,
        });
        await store.updateThread(t.id, { abortRequested: false }, T + 11);
        const after = await store.getThread(t.id);
        assert.equal(after?.abortRequested, false);
        assert.equal(after?.status, 'interrupted');
      });

      it('creates a thread once: a second insert with its id, even a concurrent one, writes nothing', async () => {
        const t = thread();
        const results = await Promise.all([
          store.transaction((tx) => tx.insertThread(t)),
          store.transaction((tx) => tx.insertThread({ ...t, agent: 'other', status: 'completed' })),
        ]);
        assert.deepEqual(results.sort(), [false, true]);
        assert.equal(await store.insertThread({ ...t, agent: 'later' }), false);
        const row = await store.getThread(t.id);
        assert.ok(row && row.agent !== 'later');
      });

      it('a write that fails inside a transaction fails the transaction with its own error, and nothing commits', async () => {
        const t = thread();
        await store.insertThread(t);
        const req = request({ threadId: t.id });
        await store.insertRequest(req);
        const cp = uid('cp');
        await assert.rejects(
          store.transaction(async (tx) => {
            // The checkpoint is a write nobody waits for (pipelined on PostgreSQL); the duplicate request fails after it.
            await tx.insertCheckpoint({
              id: cp,
              threadId: t.id,
              messageCount: 0,
              schemaVersion: 1,
              state: {},
              createdAt: T,
            });
            await tx.insertRequest(req);
            await tx.enqueueJob(job('resume', T));
          }),
          (err: Error & { code?: string }) => /unique|duplicate/i.test(err.message),
        );
        assert.equal(await store.getCheckpoint(cp), undefined);
        // The connection is fine afterwards.
        assert.equal((await store.getThread(t.id))?.id, t.id);
      });

      it('a fenced checkpoint appends after the messages the thread has, and writes nothing once the lease is gone', async () => {
        const { leaseOwner: _owner, leaseUntil: _until, ...input } = thread();
        await store.claimThread(input, 'p1', T + MINUTE, T);
        const write = (owner: string, messages: unknown[], id: string, then?: Parameters<StoreTx['enqueueJob']>[0]) =>
          store.transaction(async (tx) => {
            await tx.writeFencedCheckpoint(
              {
                threadId: input.id,
                leaseOwner: owner,
                status: 'running',
                agentVersion: '2.0.0',
                releaseLease: false,
                messages,
                checkpoint: { id, schemaVersion: 1, state: { step: id }, createdAt: T },
              },
              T + 1,
              () => new Error(`lease of ${input.id} lost`),
            );
            if (then) await tx.enqueueJob(then);
          });
        await write('p1', [{ n: 0 }, { n: 1 }], 'cp_a');
        await write('p1', [], 'cp_b');
        await write('p1', [{ n: 2 }], 'cp_c');
        const latest = await store.loadLatest(input.id);
        assert.equal(latest.checkpoint?.id, 'cp_c');
        assert.equal(latest.checkpoint?.messageCount, 3);
        assert.deepEqual(latest.messages, [{ n: 0 }, { n: 1 }, { n: 2 }]);
        assert.equal((await store.getCheckpoint('cp_b'))?.messageCount, 2);
        assert.equal((await store.getThread(input.id))?.agentVersion, '2.0.0');
        // Another run's checkpoint fails its transaction with the caller's error, and nothing of it stays.
        const j = job('resume', T);
        await assert.rejects(write('p2', [{ n: 99 }], 'cp_x', j), /lease of .* lost/);
        assert.equal(await store.getCheckpoint('cp_x'), undefined);
        assert.equal(await store.getJob(j.id), undefined);
        assert.equal((await store.getThread(input.id))?.messageCount, 3);
        assert.deepEqual((await store.loadLatest(input.id)).messages, [{ n: 0 }, { n: 1 }, { n: 2 }]);
      });

      it('a batch runs its operations in the order started, each on its own: a read started after a claim sees it', async () => {
        const { leaseOwner: _owner, leaseUntil: _until, ...input } = thread();
        const [claim, seen] = await store.batch(async (ops) => {
          const claiming = ops.claimThread(input, 'p1', T + MINUTE, T);
          const reading = ops.getThread(input.id);
          return [await claiming, await reading] as const;
        });
        assert.equal(claim.claimed, true);
        assert.equal(seen?.leaseOwner, 'p1');
        // A failing operation fails the batch; what ran before it stays (no transaction), and the store works on.
        const cp = { id: uid('cp'), threadId: input.id, messageCount: 0, schemaVersion: 1, state: {}, createdAt: T };
        await store.insertCheckpoint(cp);
        await assert.rejects(
          store.batch(async (ops) => {
            await ops.releaseThread(input.id, 'p1', T + 1);
            await ops.insertCheckpoint(cp);
          }),
        );
        assert.equal((await store.getThread(input.id))?.leaseOwner, null);
      });

      it('leases a thread to one loop at a time, creating it when missing', async () => {
        const { leaseOwner: _owner, leaseUntil: _until, ...input } = thread();
        const first = await store.claimThread(input, 'p1', T + MINUTE, T);
        assert.equal(first.claimed, true);
        assert.deepEqual(first.thread, { ...input, leaseOwner: 'p1', leaseUntil: T + MINUTE });
        assert.deepEqual(await store.getThread(input.id), first.thread);

        const busy = await store.claimThread(input, 'p2', T + 2 * MINUTE, T + 1000);
        assert.equal(busy.claimed, false);
        assert.deepEqual(busy.thread, first.thread);
        // The holder renews; a claim never rewrites the thread itself.
        const renewed = await store.claimThread(
          { ...input, agentVersion: '9.9.9', status: 'failed' },
          'p1',
          T + 2 * MINUTE,
          T + 2000,
        );
        assert.deepEqual(renewed, {
          claimed: true,
          thread: { ...first.thread, leaseUntil: T + 2 * MINUTE, updatedAt: T + 2000 },
        });
        assert.equal((await store.claimThread(input, 'p2', T + 3 * MINUTE, T + 2 * MINUTE)).claimed, false);
        const taken = await store.claimThread(input, 'p2', T + 3 * MINUTE, T + 2 * MINUTE + 1);
        assert.equal(taken.claimed, true);
        assert.equal(taken.thread.leaseOwner, 'p2');

        // Releasing clears both fields; anyone may claim at once.
        await store.updateThread(input.id, { leaseOwner: null, status: 'interrupted' }, T + 2 * MINUTE + 2);
        const released = await store.getThread(input.id);
        assert.equal(released?.leaseOwner, null);
        assert.equal(released?.leaseUntil, null);
        assert.equal(released?.status, 'interrupted');
        assert.equal((await store.claimThread(input, 'p3', T + 4 * MINUTE, T + 2 * MINUTE + 3)).claimed, true);
      });

      it('renews and releases a thread lease only for its holder', async () => {
        const { leaseOwner: _owner, leaseUntil: _until, ...input } = thread();
        await store.claimThread(input, 'p1', T + MINUTE, T);
        assert.equal(await store.renewThreadLease(input.id, 'p2', T + 9 * MINUTE), false);
        assert.equal(await store.renewThreadLease(input.id, 'p1', T + 2 * MINUTE), true);
        assert.equal((await store.getThread(input.id))?.leaseUntil, T + 2 * MINUTE);
        await store.releaseThread(input.id, 'p2', T + 1);
        assert.equal((await store.getThread(input.id))?.leaseOwner, 'p1', 'not the holder: nothing released');
        await store.releaseThread(input.id, 'p1', T + 2);
        const row = await store.getThread(input.id);
        assert.deepEqual([row?.leaseOwner, row?.leaseUntil, row?.updatedAt], [null, null, T + 2]);
        assert.equal(
          await store.renewThreadLease(input.id, 'p1', T + 3 * MINUTE),
          false,
          'a released lease is not renewed',
        );
        // A fenced advance by a run that does not hold the lease changes nothing.
        await store.claimThread(input, 'p3', T + MINUTE, T + 3);
        assert.equal(
          await store.advanceThread(
            input.id,
            { status: 'completed', addMessages: 2, agentVersion: '1', releaseLease: true, leaseOwner: 'p1' },
            T + 4,
          ),
          undefined,
        );
        assert.equal(
          await store.advanceThread(
            input.id,
            { status: 'running', addMessages: 2, agentVersion: '1', releaseLease: false, leaseOwner: 'p3' },
            T + 5,
          ),
          0,
        );
      });

      it("renews a running execution's lease only for its holder", async () => {
        const e = execution(uid('key'), 'refund', 'w1', T + MINUTE);
        await store.transaction((tx) => tx.claimExecution(e, T));
        assert.equal(await store.renewExecution(e.key, 'w2', T + 5 * MINUTE), false);
        assert.equal(await store.renewExecution(e.key, 'w1', T + 5 * MINUTE), true);
        assert.equal((await store.getExecution(e.key))?.leaseUntil, T + 5 * MINUTE);
        await store.transaction((tx) => tx.finishExecution(e.key, 'w1', { status: 'succeeded', result: 1 }, T + 1));
        assert.equal(
          await store.renewExecution(e.key, 'w1', T + 6 * MINUTE),
          false,
          'a finished execution has no lease to renew',
        );
      });

      it('gives a thread lease to one of many processes racing for it', async () => {
        const other = await backend.create();
        const { leaseOwner: _owner, leaseUntil: _until, ...input } = thread();
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? store : other).claimThread(input, `p${i}`, T + MINUTE, T)),
        );
        assert.equal(results.filter((r) => r.claimed).length, 1);
        const owner = results.find((r) => r.claimed)?.thread.leaseOwner;
        for (const r of results) assert.equal(r.thread.leaseOwner, owner);
      });

      it('stores each message once and returns them in order', async () => {
        const t = thread();
        await store.insertThread(t);
        const first = [
          { role: 'user', content: 'Refund order 42 ✓' },
          { role: 'assistant', content: [{ type: 'tool-call', id: 'c1' }] },
        ];
        const second = [{ role: 'tool', content: 'ok' }];
        await store.appendMessages(t.id, 0, first);
        await store.appendMessages(t.id, 2, second);
        await store.appendMessages(t.id, 3, []);
        assert.deepEqual(await store.listMessages(t.id), [...first, ...second]);
        assert.deepEqual(await store.listMessages(t.id, 2), first);
        assert.deepEqual(await store.listMessages(uid('thr')), []);

        // Checkpoints refer to messages by count; the bytes of a message are stored once.
        const state = { step: 3, pending: ['c1'] };
        await store.insertCheckpoint({
          id: uid('cp'),
          threadId: t.id,
          messageCount: 2,
          schemaVersion: 1,
          state,
          createdAt: T,
        });
        await store.insertCheckpoint({
          id: uid('cp'),
          threadId: t.id,
          messageCount: 3,
          schemaVersion: 1,
          state,
          createdAt: T + 1,
        });
        const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
        const expected = [...first, ...second].reduce((s, m) => s + bytes(m), 0) + 2 * bytes(state);
        assert.equal(await store.threadStorageBytes(t.id), expected);
      });

      it('refuses a message at a seq already stored', async () => {
        const t = thread();
        await store.insertThread(t);
        await store.appendMessages(t.id, 0, [{ n: 0 }, { n: 1 }]);
        await assert.rejects(store.appendMessages(t.id, 1, [{ n: 'dup' }]));
        assert.deepEqual(await store.listMessages(t.id), [{ n: 0 }, { n: 1 }]);
      });

      it('rolls back the whole transaction when a message seq collides', async () => {
        const t = thread();
        const boom = store.transaction(async (tx) => {
          await tx.insertThread(t);
          await tx.appendMessages(t.id, 0, [{ n: 0 }]);
          await tx.insertCheckpoint({
            id: uid('cp'),
            threadId: t.id,
            messageCount: 1,
            schemaVersion: 1,
            state: {},
            createdAt: T,
          });
          await tx.appendMessages(t.id, 0, [{ n: 'again' }]);
        });
        await assert.rejects(boom);
        assert.equal(await store.getThread(t.id), undefined);
        assert.deepEqual(await store.listMessages(t.id), []);
        assert.equal(await store.getLatestCheckpoint(t.id), undefined);
      });

      it('returns the latest checkpoint, and any one by id', async () => {
        const t = thread();
        await store.insertThread(t);
        assert.equal(await store.getLatestCheckpoint(t.id), undefined);
        const older = {
          id: uid('cp'),
          threadId: t.id,
          messageCount: 1,
          schemaVersion: 1,
          state: { step: 1 },
          createdAt: T + 1,
        };
        const newer = {
          id: uid('cp'),
          threadId: t.id,
          messageCount: 5,
          schemaVersion: 2,
          state: { step: 2, deep: { list: [null, true, 'x'] } },
          createdAt: T + 2,
        };
        await store.insertCheckpoint(newer);
        await store.insertCheckpoint(older);
        assert.deepEqual(await store.getLatestCheckpoint(t.id), newer);
        assert.deepEqual(await store.getCheckpoint(older.id), older);
        assert.equal(await store.getCheckpoint(uid('cp')), undefined);
      });

      it('loads the latest checkpoint with exactly the messages it covers, in one read', async () => {
        const t = thread();
        await store.insertThread(t);
        assert.deepEqual(await store.loadLatest(t.id), { checkpoint: undefined, messages: [] });
        await store.appendMessages(t.id, 0, [{ n: 0 }, { n: 1, text: "it's ✓" }, { n: 2 }, { n: 3 }]);
        const older = {
          id: uid('cp'),
          threadId: t.id,
          messageCount: 1,
          schemaVersion: 1,
          state: { step: 1 },
          createdAt: T + 1,
        };
        const newer = {
          id: uid('cp'),
          threadId: t.id,
          messageCount: 3,
          schemaVersion: 2,
          state: { step: 2, deep: { list: [null, true, 'x'] } },
          createdAt: T + 2,
        };
        await store.insertCheckpoint(older);
        assert.deepEqual(await store.loadLatest(t.id), { checkpoint: older, messages: [{ n: 0 }] });
        await store.insertCheckpoint(newer);
        // Message 3 was appended after the checkpoint (a crash before the next one): it is not part of the state.
        assert.deepEqual(await store.loadLatest(t.id), {
          checkpoint: newer,
          messages: [{ n: 0 }, { n: 1, text: "it's ✓" }, { n: 2 }],
        });
        const empty = { id: uid('cp'), threadId: t.id, messageCount: 0, schemaVersion: 2, state: {}, createdAt: T + 3 };
        await store.insertCheckpoint(empty);
        assert.deepEqual(await store.loadLatest(t.id), { checkpoint: empty, messages: [] });
      });

      it('advances a thread in one statement: status, message count, version, lease; undefined for no thread', async () => {
        const t = thread({ messageCount: 2 });
        await store.insertThread(t);
        assert.equal((await store.claimThread(t, 'run-1', T + MINUTE, T)).claimed, true);
        assert.equal(
          await store.advanceThread(
            t.id,
            { status: 'interrupted', addMessages: 3, agentVersion: '2.0.0', releaseLease: false },
            T + 5,
          ),
          2,
        );
        let row = await store.getThread(t.id);
        assert.deepEqual(
          [row?.status, row?.messageCount, row?.agentVersion, row?.leaseOwner, row?.updatedAt],
          ['interrupted', 5, '2.0.0', 'run-1', T + 5],
        );
        assert.equal(
          await store.advanceThread(
            t.id,
            { status: 'completed', addMessages: 0, agentVersion: '2.0.0', releaseLease: true },
            T + 6,
          ),
          5,
        );
        row = await store.getThread(t.id);
        assert.deepEqual(
          [row?.status, row?.messageCount, row?.leaseOwner, row?.leaseUntil],
          ['completed', 5, null, null],
        );
        assert.equal(
          await store.advanceThread(
            uid('thr'),
            { status: 'running', addMessages: 1, agentVersion: '1', releaseLease: false },
            T,
          ),
          undefined,
        );
      });
    });

    describe('transactions', () => {
      it('rolls back every write when the function throws', async () => {
        const t = thread();
        const r = pendingRequest({ threadId: t.id });
        const j = job(uid('kind'), T, { threadId: t.id, requestId: r.id });
        const headBefore = await store.getAuditHeads();
        const boom = new Error('boom');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.insertThread(t);
            await tx.insertRequest(r);
            await tx.appendAudit([{ type: 'interrupted', actor: 'agent:x', threadId: t.id, requestId: r.id }], T);
            await tx.enqueueJob(j);
            // Reads inside the transaction see its own writes.
            assert.deepEqual(await tx.getThread(t.id), t);
            throw boom;
          }),
          (err) => err === boom,
        );
        assert.equal(await store.getThread(t.id), undefined);
        assert.equal(await store.getRequest(r.id), undefined);
        assert.equal(await store.getJob(j.id), undefined);
        assert.deepEqual(await store.listAudit({ threadId: t.id }), []);
        assert.deepEqual(await store.getAuditHeads(), headBefore);
      });

      it('commits every write and returns the value when the function succeeds', async () => {
        const t = thread();
        const r = pendingRequest({ threadId: t.id });
        const result = await store.transaction(async (tx) => {
          await tx.insertThread(t);
          await tx.insertRequest(r);
          await tx.appendAudit([{ type: 'interrupted', actor: 'agent:x', threadId: t.id, requestId: r.id }], T);
          return (await tx.listAudit({ threadId: t.id }))[0]?.seq;
        });
        assert.equal(typeof result, 'number');
        assert.deepEqual(await store.getThread(t.id), t);
        assert.deepEqual(await store.getRequest(r.id), r);
        assert.equal((await store.listAudit({ threadId: t.id }))[0]?.seq, result);
      });
    });

    describe('approval requests', () => {
      it('round-trips every field, with and without the optional ones', async () => {
        const full = request();
        const bare = pendingRequest();
        await store.insertRequest(full);
        await store.insertRequest(bare);
        assert.deepEqual(await store.getRequest(full.id), full);
        assert.deepEqual(await store.getRequest(bare.id), bare);
        assert.deepEqual(await store.transaction((tx) => tx.getRequest(full.id, { forUpdate: true })), full);
        assert.equal(await store.getRequest(uid('req')), undefined);
        await assert.rejects(store.insertRequest(full));
      });

      it('updates only at the expected version', async () => {
        const r = pendingRequest({ approvalsRequired: 2 });
        await store.insertRequest(r);
        const newArgs = { orderId: 'o-42', amount: 99 };
        const next: ApprovalRequest = {
          ...r,
          args: newArgs,
          actionHash: actionHash(r.tool, newArgs),
          approvalsReceived: 2,
          approvalsRequired: 3,
          version: 2,
          status: 'authorized',
          resolution: { type: 'approve', by: 'rev-2', at: T + 20 },
          supersededBy: uid('req'),
          updatedAt: T + 20,
          resolvedAt: T + 20,
          tier: 'escalate',
          role: 'cfo',
          expiresAt: T + 120 * MINUTE,
        };
        assert.equal(await store.updateRequest(next, 1), true);
        assert.deepEqual(await store.getRequest(r.id), next);

        const stale = { ...next, version: 3, status: 'rejected' as const, updatedAt: T + 30 };
        assert.equal(await store.updateRequest(stale, 1), false);
        assert.deepEqual(await store.getRequest(r.id), next);
        assert.equal(await store.updateRequest({ ...stale, id: uid('req') }, 2), false);
      });

      describe('listing the queue', () => {
        const threadId = uid('thr');
        const toolA = uid('tool');
        const toolB = uid('tool');
        const [roleA, roleB, roleC] = [uid('role'), uid('role'), uid('role')];
        // Equal createdAt and expiresAt values on purpose: keyset pagination must break ties by id.
        const rows: ApprovalRequest[] = [
          pendingRequest({
            id: `${threadId}-a`,
            threadId,
            tool: toolA,
            role: roleA,
            createdAt: T + 1,
            expiresAt: T + 50 * MINUTE,
          }),
          pendingRequest({
            id: `${threadId}-b`,
            threadId,
            tool: toolA,
            role: roleB,
            createdAt: T + 2,
            expiresAt: T + 10 * MINUTE,
          }),
          pendingRequest({
            id: `${threadId}-c`,
            threadId,
            tool: toolB,
            role: roleA,
            createdAt: T + 2,
            expiresAt: T + 10 * MINUTE,
          }),
          pendingRequest({
            id: `${threadId}-d`,
            threadId,
            tool: toolB,
            role: roleC,
            createdAt: T + 2,
            expiresAt: T + 30 * MINUTE,
          }),
          pendingRequest({
            id: `${threadId}-e`,
            threadId,
            tool: toolA,
            role: roleA,
            createdAt: T + 3,
            expiresAt: T + 20 * MINUTE,
            status: 'rejected',
          }),
          pendingRequest({
            id: `${threadId}-f`,
            threadId,
            tool: toolB,
            role: roleB,
            createdAt: T + 4,
            expiresAt: T + 40 * MINUTE,
          }),
          pendingRequest({
            id: `${threadId}-g`,
            threadId,
            tool: toolA,
            role: roleC,
            createdAt: T + 4,
            expiresAt: T + 10 * MINUTE,
            status: 'authorized',
          }),
        ];
        const newest = [...rows].sort((x, y) => y.createdAt - x.createdAt || (y.id < x.id ? -1 : 1));
        const soonest = [...rows].sort((x, y) => x.expiresAt - y.expiresAt || (x.id < y.id ? -1 : 1));

        before(async () => {
          for (const r of rows) await store.insertRequest(r);
          // Another thread's requests with the same tools and roles must stay out of the thread filter.
          await store.insertRequest(pendingRequest({ tool: toolA, role: roleA, createdAt: T + 9 }));
        });

        it('filters by thread, status, roles and tool', async () => {
          const list = async (q: Parameters<Store['listRequests']>[0]) =>
            ids((await store.listRequests({ threadId, ...q })).items).sort();
          assert.deepEqual(await list({}), ids(rows).sort());
          assert.deepEqual(await list({ status: 'pending' }), ids(rows.filter((r) => r.status === 'pending')).sort());
          assert.deepEqual(
            await list({ roles: [roleA, roleB] }),
            ids(rows.filter((r) => r.role === roleA || r.role === roleB)).sort(),
          );
          assert.deepEqual(await list({ roles: [] }), []);
          assert.deepEqual(await list({ tool: toolB }), ids(rows.filter((r) => r.tool === toolB)).sort());
          assert.deepEqual(
            await list({ status: 'pending', roles: [roleA], tool: toolA }),
            ids(rows.filter((r) => r.status === 'pending' && r.role === roleA && r.tool === toolA)).sort(),
          );
          const byRole = await store.listRequests({ roles: [roleC] });
          assert.deepEqual(ids(byRole.items).sort(), ids(rows.filter((r) => r.role === roleC)).sort());
          const byTool = await store.listRequests({ tool: toolA, status: 'pending' });
          assert.equal(byTool.items.length, rows.filter((r) => r.tool === toolA && r.status === 'pending').length + 1);
        });

        it('orders newest first by default, or soonest expiry first', async () => {
          assert.deepEqual(ids((await store.listRequests({ threadId })).items), ids(newest));
          assert.deepEqual(ids((await store.listRequests({ threadId, order: 'newest' })).items), ids(newest));
          assert.deepEqual(ids((await store.listRequests({ threadId, order: 'expiry' })).items), ids(soonest));
          const one = await store.listRequests({ threadId, order: 'expiry', limit: 100 });
          assert.equal(one.nextCursor, null);
          assert.deepEqual(one.items[0], soonest[0]);
        });

        for (const order of ['newest', 'expiry'] as const) {
          for (const limit of [1, 2, 3, 7]) {
            it(`pages through every item exactly once (${order}, ${limit} per page)`, async () => {
              const seen: string[] = [];
              let cursor: string | undefined;
              let pages = 0;
              do {
                const page = await store.listRequests({ threadId, order, limit, ...(cursor ? { cursor } : {}) });
                assert.ok(page.items.length <= limit);
                seen.push(...ids(page.items));
                cursor = page.nextCursor ?? undefined;
                pages++;
                assert.ok(pages <= rows.length + 1, 'pagination does not end');
              } while (cursor);
              assert.deepEqual(seen, ids(order === 'newest' ? newest : soonest));
              assert.equal(pages, Math.ceil(rows.length / limit));
            });
          }
        }

        it("finds a tool call's requests by thread and call id, oldest first, never another thread's", async () => {
          // Threads of their own, so the listings above and below keep their rows.
          const mine = `${threadId}-calls`;
          const other = `${threadId}-other`;
          const first = pendingRequest({
            threadId: mine,
            toolCallId: 'call_1',
            createdAt: T + 20,
            status: 'superseded',
          });
          const second = pendingRequest({
            threadId: mine,
            toolCallId: 'call_1',
            createdAt: T + 21,
            parentId: first.id,
          });
          // Models reuse call ids across threads: the same id elsewhere stays out.
          const elsewhere = pendingRequest({ threadId: other, toolCallId: 'call_1', createdAt: T + 19 });
          for (const r of [second, elsewhere, first]) await store.insertRequest(r);
          assert.deepEqual(ids(await store.listRequestsForCall(mine, 'call_1')), [first.id, second.id]);
          assert.deepEqual(ids(await store.listRequestsForCall(other, 'call_1')), [elsewhere.id]);
          assert.deepEqual(await store.listRequestsForCall(mine, 'call_2'), []);
        });

        it('keeps filters across pages', async () => {
          const want = ids(soonest.filter((r) => r.status === 'pending' && (r.role === roleA || r.role === roleB)));
          const seen: string[] = [];
          let cursor: string | null = null;
          do {
            const page: Awaited<ReturnType<Store['listRequests']>> = await store.listRequests({
              threadId,
              status: 'pending',
              roles: [roleA, roleB],
              order: 'expiry',
              limit: 2,
              ...(cursor ? { cursor } : {}),
            });
            seen.push(...ids(page.items));
            cursor = page.nextCursor;
          } while (cursor);
          assert.deepEqual(seen, want);
        });

        it("sets a request's status at the next version, whatever version it is at", async () => {
          const r = pendingRequest();
          await store.insertRequest({ ...r, status: 'authorized' });
          await store.setRequestStatus(r.id, 'executing', T + 9);
          const got = await store.getRequest(r.id);
          assert.deepEqual([got?.status, got?.version, got?.updatedAt], ['executing', r.version + 1, T + 9]);
        });

        it('refuses a malformed cursor with a ValidationError', async () => {
          for (const cursor of [
            'garbage',
            '%%%',
            Buffer.from('abc:def').toString('base64url'),
            Buffer.from(':x').toString('base64url'),
          ]) {
            await assert.rejects(
              store.listRequests({ threadId, cursor }),
              (err) => err instanceof ValidationError && err.code === 'invalid_input',
              cursor,
            );
          }
        });
      });

      it('claims pending requests past their expiry, soonest first', async () => {
        // The only test that uses expiries before T, so the claimed set is exactly this test's.
        const late = pendingRequest({ expiresAt: T - 3000 });
        const later = pendingRequest({ expiresAt: T - 2000 });
        const decided = pendingRequest({ expiresAt: T - 2500, status: 'authorized' });
        const notYet = pendingRequest({ expiresAt: T - 1000 });
        for (const r of [later, notYet, decided, late]) await store.insertRequest(r);
        assert.deepEqual(ids(await store.claimExpired(T - 1500, 10)), [late.id, later.id]);
        assert.deepEqual(ids(await store.claimExpired(T - 1500, 1)), [late.id]);
        assert.deepEqual(await store.transaction((tx) => tx.claimExpired(T - 2000, 10)), [late, later]);
        assert.deepEqual(await store.claimExpired(T - 5000, 10), []);
        // Once resolved it is no longer claimed.
        assert.equal(
          await store.updateRequest(
            { ...late, status: 'expired', version: 2, resolvedAt: T - 1500, updatedAt: T - 1500 },
            1,
          ),
          true,
        );
        assert.deepEqual(ids(await store.claimExpired(T - 1500, 10)), [later.id]);
        assert.equal(
          await store.updateRequest(
            { ...later, status: 'expired', version: 2, resolvedAt: T - 1500, updatedAt: T - 1500 },
            1,
          ),
          true,
        );
        assert.equal(
          await store.updateRequest({ ...notYet, status: 'cancelled', version: 2, updatedAt: T - 1500 }, 1),
          true,
        );
      });

      it('records one vote per reviewer and lists the approvers in order', async () => {
        const r = pendingRequest({ approvalsRequired: 3 });
        await store.insertRequest(r);
        await store.insertVote({ requestId: r.id, reviewer: 'rev-b', type: 'approve', version: 1, createdAt: T + 2 });
        await store.insertVote({ requestId: r.id, reviewer: 'rev-a', type: 'approve', version: 2, createdAt: T + 3 });
        await store.insertVote({ requestId: r.id, reviewer: 'rev-c', type: 'reject', version: 3, createdAt: T + 4 });
        await assert.rejects(
          store.insertVote({ requestId: r.id, reviewer: 'rev-b', type: 'approve', version: 3, createdAt: T + 5 }),
        );
        await assert.rejects(
          store.insertVote({ requestId: r.id, reviewer: 'rev-c', type: 'approve', version: 3, createdAt: T + 5 }),
        );
        assert.deepEqual(await store.listVoters(r.id), ['rev-b', 'rev-a']);
        assert.deepEqual(await store.listVoters(uid('req')), []);
        // An approver who changes their mind: the reject replaces the approval.
        await store.insertVote({ requestId: r.id, reviewer: 'rev-a', type: 'reject', version: 4, createdAt: T + 6 });
        assert.deepEqual(await store.listVoters(r.id), ['rev-b']);
      });

      it('a checked write that changes the wrong number of rows fails its transaction, even when it was not waited for', async () => {
        const r = pendingRequest();
        await store.insertRequest(r);
        await store.insertVote({ requestId: r.id, reviewer: 'rev-a', type: 'approve', version: 1, createdAt: T });
        const job1 = job('resume', T);
        // A second approval by the same reviewer, sent before the job and the COMMIT.
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.insertVote({ requestId: r.id, reviewer: 'rev-a', type: 'approve', version: 2, createdAt: T + 1 });
            await tx.enqueueJob(job1);
          }),
          /rev-a already has a vote/,
        );
        assert.equal(await store.getJob(job1.id), undefined);
        // A locked update at a version the row is not at.
        const job2 = job('resume', T);
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.updateLockedRequest({ ...r, status: 'authorized', version: 9 }, 8);
            await tx.enqueueJob(job2);
          }),
          /no longer at version 8/,
        );
        assert.equal(await store.getJob(job2.id), undefined);
        assert.equal((await store.getRequest(r.id))?.status, 'pending');
        // At the right version it writes.
        await store.transaction(async (tx) => {
          const cur = await tx.getRequest(r.id, { forUpdate: true });
          await tx.updateLockedRequest({ ...cur!, status: 'authorized', version: cur!.version + 1 }, cur!.version);
        });
        assert.equal((await store.getRequest(r.id))?.status, 'authorized');
      });

      it('counts pending requests by role with the oldest creation time', async () => {
        const [roleA, roleB, roleC] = [uid('role'), uid('role'), uid('role')];
        await store.insertRequest(pendingRequest({ role: roleA, createdAt: T + 30 }));
        await store.insertRequest(pendingRequest({ role: roleA, createdAt: T + 10 }));
        await store.insertRequest(pendingRequest({ role: roleA, createdAt: T + 5, status: 'authorized' }));
        await store.insertRequest(pendingRequest({ role: roleB, createdAt: T + 20 }));
        await store.insertRequest(pendingRequest({ role: roleC, createdAt: T + 1, status: 'rejected' }));
        const mine = (await store.countPendingByRole())
          .filter((c) => [roleA, roleB, roleC].includes(c.role))
          .sort((x, y) => (x.role < y.role ? -1 : 1));
        const want = [
          { role: roleA, count: 2, oldestCreatedAt: T + 10 },
          { role: roleB, count: 1, oldestCreatedAt: T + 20 },
        ].sort((x, y) => (x.role < y.role ? -1 : 1));
        assert.deepEqual(mine, want);
      });

      it('keeps one trust grant per thread, tool and rule', async () => {
        const threadId = uid('thr');
        assert.equal(await store.getTrust(threadId, 'refund', 'r1'), undefined);
        await store.insertTrust({
          threadId,
          tool: 'refund',
          ruleId: 'r1',
          reviewer: 'rev-1',
          requestId: 'req-1',
          createdAt: T,
        });
        await store.insertTrust({
          threadId,
          tool: 'refund',
          ruleId: 'r1',
          reviewer: 'rev-2',
          requestId: 'req-2',
          createdAt: T + 1,
        });
        assert.deepEqual(await store.getTrust(threadId, 'refund', 'r1'), {
          reviewer: 'rev-1',
          requestId: 'req-1',
          createdAt: T,
        });
        assert.equal(await store.getTrust(threadId, 'refund', 'r2'), undefined);
      });
    });

    describe('execute-once ledger', () => {
      it('claims a key once, and returns the finished row afterwards', async () => {
        const key = uid('key');
        const tool = uid('tool');
        const requestId = uid('req');
        const e = { ...execution(key, tool, 'worker-1', T + MINUTE, { amount: 10 }), requestId, threadId: uid('thr') };
        const first = await store.claimExecution(e, T);
        assert.equal(first.claimed, true);
        const want: ExecutionRow = {
          ...e,
          status: 'running',
          attempts: 1,
          result: undefined,
          error: null,
          updatedAt: T,
        };
        assert.deepEqual(first.row, want);

        const second = await store.claimExecution(
          { ...e, leaseOwner: 'worker-2', leaseUntil: T + 2 * MINUTE },
          T + 1000,
        );
        assert.equal(second.claimed, false);
        assert.deepEqual(second.row, want);

        assert.equal(
          await store.finishExecution(key, 'worker-2', { status: 'succeeded', result: { ok: true } }, T + 2000),
          false,
        );
        assert.equal(
          await store.finishExecution(
            key,
            'worker-1',
            { status: 'succeeded', result: { refundId: 'rf_1', amounts: [1.5, 2] } },
            T + 2000,
          ),
          true,
        );
        assert.equal(
          await store.finishExecution(key, 'worker-1', { status: 'failed', error: 'late' }, T + 2500),
          false,
        );
        const done: ExecutionRow = {
          ...want,
          status: 'succeeded',
          leaseUntil: null,
          result: { refundId: 'rf_1', amounts: [1.5, 2] },
          updatedAt: T + 2000,
        };
        assert.deepEqual(await store.getExecution(key), done);

        // Finished is final: even long after any lease, a claim returns the recorded outcome.
        const again = await store.claimExecution({ ...e, leaseOwner: 'worker-3' }, T + 60 * MINUTE);
        assert.equal(again.claimed, false);
        assert.deepEqual(again.row, done);
        assert.deepEqual(await store.listExecutionsForRequest(requestId), [done]);
        assert.equal(await store.getExecution(uid('key')), undefined);
      });

      it('lets another owner take over after the lease expires', async () => {
        const key = uid('key');
        const e = execution(key, uid('tool'), 'worker-1', T + MINUTE);
        assert.equal((await store.claimExecution(e, T)).claimed, true);
        // At exactly the lease end the lease still holds.
        assert.equal((await store.claimExecution({ ...e, leaseOwner: 'worker-2' }, T + MINUTE)).claimed, false);
        const taken = await store.claimExecution(
          { ...e, leaseOwner: 'worker-2', leaseUntil: T + 3 * MINUTE },
          T + MINUTE + 1,
        );
        assert.equal(taken.claimed, true);
        assert.equal(taken.row.leaseOwner, 'worker-2');
        assert.equal(taken.row.leaseUntil, T + 3 * MINUTE);
        assert.equal(taken.row.attempts, 2);
        assert.equal(taken.row.status, 'running');
        // The crashed owner coming back cannot finish it.
        assert.equal(await store.finishExecution(key, 'worker-1', { status: 'succeeded' }, T + 2 * MINUTE), false);
        assert.equal(
          await store.finishExecution(key, 'worker-2', { status: 'failed', error: 'card declined' }, T + 2 * MINUTE),
          true,
        );
        const row = await store.getExecution(key);
        assert.equal(row?.status, 'failed');
        assert.equal(row?.error, 'card declined');
        assert.equal(row?.result, undefined);
        assert.equal(row?.attempts, 2);
      });

      it("finishes a held claim as a checked write: the holder's outcome lands, anyone else's fails its whole transaction", async () => {
        const key = uid('key');
        const e = execution(key, uid('tool'), 'w1', T + MINUTE);
        assert.equal((await store.claimExecution(e, T)).claimed, true);
        class Lost extends Error {}
        const never = uid('thr-never');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.insertThread(thread({ id: never }));
            await tx.finishHeldExecution(key, 'w2', { status: 'succeeded', result: 2 }, T + 1, () => new Lost('lost'));
          }),
          Lost,
        );
        assert.equal(await store.getThread(never), undefined, 'nothing of that transaction landed');
        assert.equal((await store.getExecution(key))?.status, 'running');
        await store.transaction((tx) =>
          tx.finishHeldExecution(key, 'w1', { status: 'succeeded', result: { ok: 1 } }, T + 2, () => new Lost('lost')),
        );
        const row = await store.getExecution(key);
        assert.equal(row?.status, 'succeeded');
        assert.deepEqual(row?.result, { ok: 1 });
        assert.equal(row?.leaseUntil, null);
        // Finished: even its holder cannot finish it again.
        await assert.rejects(
          store.transaction((tx) =>
            tx.finishHeldExecution(key, 'w1', { status: 'failed', error: 'late' }, T + 3, () => new Lost('lost')),
          ),
          Lost,
        );
        assert.equal((await store.getExecution(key))?.status, 'succeeded');
      });

      it('never reuses an abandoned key', async () => {
        const key = uid('key');
        const e = execution(key, uid('tool'), 'w1', T + MINUTE);
        assert.equal((await store.claimExecution(e, T)).claimed, true);
        assert.equal(await store.finishExecution(key, 'w1', { status: 'abandoned' }, T + 1), true);
        const later = await store.claimExecution({ ...e, leaseOwner: 'w2' }, T + 60 * MINUTE);
        assert.equal(later.claimed, false);
        assert.equal(later.row.status, 'abandoned');
        assert.equal(later.row.leaseUntil, null);
        assert.equal(later.row.attempts, 1);
      });

      it('inserts a claim with a transaction and gives it back only to its holder, on its first attempt', async () => {
        const key = uid('key');
        const e = { ...execution(key, uid('tool'), 'w1', T + MINUTE), requestId: uid('req') };
        await store.transaction((tx) => tx.insertClaim(e, T));
        const row = await store.getExecution(key);
        assert.equal(row?.status, 'running');
        assert.equal(row?.attempts, 1);
        assert.equal(row?.leaseOwner, 'w1');
        assert.equal(row?.requestId, e.requestId);
        // A key already there fails the transaction that inserts it; nothing else of it lands.
        const never = uid('thr-never');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.insertThread(thread({ id: never }));
            await tx.insertClaim({ ...e, leaseOwner: 'w2' }, T + 1);
          }),
        );
        assert.equal(await store.getThread(never), undefined);
        assert.equal((await store.getExecution(key))?.leaseOwner, 'w1');
        assert.equal(await store.releaseExecution(key, 'w2'), false, 'not the holder');
        assert.equal(await store.releaseExecution(key, 'w1'), true);
        assert.equal(await store.getExecution(key), undefined);
        assert.equal(await store.releaseExecution(key, 'w1'), false, 'nothing left to give');
        // Taken over (a second attempt) or finished: not the holder's to give back.
        await store.transaction((tx) => tx.insertClaim({ ...e, leaseUntil: T + 1 }, T));
        assert.equal((await store.claimExecution({ ...e, leaseUntil: T + MINUTE }, T + 2)).row.attempts, 2);
        assert.equal(await store.releaseExecution(key, 'w1'), false);
        assert.equal(await store.finishExecution(key, 'w1', { status: 'succeeded', result: 1 }, T + 3), true);
        assert.equal(await store.releaseExecution(key, 'w1'), false);
        assert.equal((await store.getExecution(key))?.status, 'succeeded');
      });

      it('gives one winner when claims race', async () => {
        const other = await backend.create();
        const key = uid('key');
        const e = execution(key, uid('tool'), 'x', T + MINUTE);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 ? store : other).claimExecution({ ...e, leaseOwner: `worker-${i}` }, T),
          ),
        );
        const winners = results.filter((r) => r.claimed);
        assert.equal(winners.length, 1);
        const owner = winners[0]?.row.leaseOwner;
        for (const r of results) assert.equal(r.row.leaseOwner, owner);
      });

      it('aggregates sums and counts by outcome, group and window', async () => {
        const tool = uid('tool');
        let k = 0;
        const run = async (args: Record<string, unknown>, status: 'succeeded' | 'failed' | null, at: number) => {
          const key = `${tool}-${k++}`;
          await store.claimExecution(execution(key, tool, 'w', at + MINUTE, args), at);
          if (status)
            assert.equal(
              await store.finishExecution(key, 'w', status === 'failed' ? { status, error: 'x' } : { status }, at),
              true,
            );
        };
        await run({ amount: 100, customer: 'c1', priority: 2, vip: true }, 'succeeded', T + 100);
        await run({ amount: 50.5, customer: 'c2', priority: 1, vip: false }, 'succeeded', T + 200);
        await run({ amount: 25, customer: 'c1', priority: 2, vip: true }, 'succeeded', T + 300);
        await run({ amount: 7, customer: 'c1', priority: 1, vip: false }, 'failed', T + 300);
        await run({ amount: 1000, customer: 'c1', priority: 2, vip: true }, null, T + 300);
        // Values that are not JSON numbers count as rows but add nothing to a sum, on every backend.
        await run({ amount: 'lots', customer: 'c3', priority: '2' }, 'succeeded', T + 300);
        await run({ customer: 'c3', priority: null }, 'succeeded', T + 300);
        await store.claimExecution(
          execution(uid('key'), uid('tool'), 'w', T + MINUTE, { amount: 1, customer: 'c1' }),
          T + 100,
        );

        const agg = (q: Partial<Parameters<Store['aggregate']>[0]>) =>
          store.aggregate({ tool, fn: 'sum', field: 'amount', since: 0, outcome: 'executed', ...q });
        assert.equal(await agg({}), 175.5);
        assert.equal(await agg({ fn: 'count', field: undefined }), 5);
        assert.equal(await agg({ since: T + 150 }), 75.5);
        assert.equal(await agg({ since: T + 301 }), 0);
        assert.equal(await agg({ fn: 'count', since: T + 301 }), 0);
        assert.equal(await agg({ groupBy: { field: 'customer', value: 'c3' } }), 0);
        assert.equal(await agg({ fn: 'count', groupBy: { field: 'customer', value: 'c3' } }), 2);
        assert.equal(await agg({ fn: 'count', groupBy: { field: 'priority', value: 2 } }), 2);
        assert.equal(await agg({ fn: 'count', groupBy: { field: 'priority', value: '2' } }), 3);
        assert.equal(await agg({ fn: 'count', groupBy: { field: 'priority', value: null } }), 0);
        assert.equal(await agg({ groupBy: { field: 'customer', value: 'c1' } }), 125);
        assert.equal(await agg({ fn: 'count', groupBy: { field: 'customer', value: 'c2' } }), 1);
        assert.equal(await agg({ groupBy: { field: 'priority', value: 2 } }), 125);
        assert.equal(await agg({ groupBy: { field: 'vip', value: true } }), 125);
        assert.equal(await agg({ groupBy: { field: 'vip', value: false } }), 50.5);
        assert.equal(await agg({ groupBy: { field: 'customer', value: 'c1' }, since: T + 250 }), 25);
        assert.equal(await agg({ outcome: 'failed' }), 7);
        assert.equal(await agg({ outcome: 'failed', fn: 'count' }), 1);
        assert.equal(await agg({ groupBy: { field: 'customer', value: 'nobody' } }), 0);
        assert.equal(await agg({ field: 'missing' }), 0);
        await assert.rejects(agg({ field: "amount') OR 1=1 --" }), ValidationError);
        await assert.rejects(agg({ groupBy: { field: 'a.b', value: 1 } }), ValidationError);
      });
    });

    describe('jobs', () => {
      it('claims due jobs of the kinds asked, up to the limit, earliest first', async () => {
        const kind = uid('kind');
        const otherKind = uid('kind');
        const a = job(kind, T + 30, {
          threadId: uid('thr'),
          requestId: uid('req'),
          payload: { deep: { list: [1, 'two'] } },
        });
        const b = job(kind, T + 10);
        const c = job(kind, T + 20);
        const future = job(kind, T + 10 * MINUTE);
        const other = job(otherKind, T);
        for (const j of [a, b, c, future, other]) await store.enqueueJob(j);
        assert.deepEqual(await store.getJob(a.id), {
          ...a,
          status: 'ready',
          attempts: 0,
          leaseOwner: null,
          leaseUntil: null,
          lastError: null,
        });

        assert.deepEqual(await store.claimJobs([], 'w1', T + MINUTE, T + 2 * MINUTE, 10), []);
        assert.deepEqual(await store.claimJobs([kind], 'w1', T, T + MINUTE, 10), []);
        const firstTwo = await store.claimJobs([kind], 'w1', T + MINUTE, T + 2 * MINUTE, 2);
        assert.deepEqual(ids(firstTwo), [b.id, c.id]);
        for (const j of firstTwo) {
          assert.equal(j.status, 'running');
          assert.equal(j.leaseOwner, 'w1');
          assert.equal(j.leaseUntil, T + 2 * MINUTE);
          assert.equal(j.attempts, 1);
        }
        const rest = await store.claimJobs([kind], 'w2', T + MINUTE, T + 2 * MINUTE, 10);
        assert.deepEqual(ids(rest), [a.id]);
        assert.deepEqual(rest[0]?.payload, a.payload);
        assert.equal(rest[0]?.threadId, a.threadId);
        assert.equal(rest[0]?.requestId, a.requestId);
        assert.deepEqual(ids(await store.claimJobs([otherKind, kind], 'w3', T + MINUTE, T + 2 * MINUTE, 10)), [
          other.id,
        ]);
        assert.deepEqual(ids(await store.listJobs({ kind })), ids([a, b, c, future]).sort());
        assert.deepEqual(ids(await store.listJobs({ threadId: a.threadId! })), [a.id]);
        assert.deepEqual(ids(await store.listJobs({ requestId: a.requestId! })), [a.id]);
      });

      it('does not hand out a leased job until the lease expires', async () => {
        const kind = uid('kind');
        const j = job(kind, T);
        await store.enqueueJob(j);
        assert.deepEqual(ids(await store.claimJobs([kind], 'w1', T, T + MINUTE, 5)), [j.id]);
        assert.deepEqual(await store.claimJobs([kind], 'w2', T + MINUTE - 1, T + 2 * MINUTE, 5), []);
        assert.deepEqual(await store.claimJobs([kind], 'w2', T + MINUTE, T + 2 * MINUTE, 5), []);
        const taken = await store.claimJobs([kind], 'w2', T + MINUTE + 1, T + 3 * MINUTE, 5);
        assert.deepEqual(ids(taken), [j.id]);
        assert.equal(taken[0]?.leaseOwner, 'w2');
        assert.equal(taken[0]?.attempts, 2);
        // The worker that lost its lease can no longer complete or fail the job.
        assert.equal(await store.completeJob(j.id, 'w1', T + MINUTE + 2), false);
        assert.equal(await store.failJob(j.id, 'w1', 'late', null, T + MINUTE + 2), false);
        assert.equal(await store.completeJob(j.id, 'w2', T + MINUTE + 3), true);
        const done = await store.getJob(j.id);
        assert.equal(done?.status, 'done');
        assert.equal(done?.leaseOwner, null);
        assert.equal(done?.leaseUntil, null);
        assert.equal(await store.completeJob(j.id, 'w2', T + MINUTE + 4), false);
        assert.deepEqual(await store.claimJobs([kind], 'w3', T + 100 * MINUTE, T + 101 * MINUTE, 5), []);
      });

      it('retries a failed job at its new time, and never runs a dead one', async () => {
        const kind = uid('kind');
        const j = job(kind, T);
        const d = job(kind, T);
        await store.enqueueJob(j);
        await store.enqueueJob(d);
        assert.equal((await store.claimJobs([kind], 'w1', T, T + MINUTE, 5)).length, 2);
        assert.equal(await store.failJob(j.id, 'w1', 'smtp timeout', T + 5 * MINUTE, T + 1), true);
        assert.equal(await store.failJob(d.id, 'w1', 'bad address', null, T + 1), true);
        const retry = await store.getJob(j.id);
        assert.deepEqual(
          retry && {
            status: retry.status,
            runAt: retry.runAt,
            lastError: retry.lastError,
            attempts: retry.attempts,
            leaseOwner: retry.leaseOwner,
          },
          { status: 'ready', runAt: T + 5 * MINUTE, lastError: 'smtp timeout', attempts: 1, leaseOwner: null },
        );
        const dead = await store.getJob(d.id);
        assert.equal(dead?.status, 'dead');
        assert.equal(dead?.lastError, 'bad address');
        assert.deepEqual(await store.claimJobs([kind], 'w2', T + 5 * MINUTE - 1, T + 10 * MINUTE, 5), []);
        const again = await store.claimJobs([kind], 'w2', T + 5 * MINUTE, T + 10 * MINUTE, 5);
        assert.deepEqual(ids(again), [j.id]);
        assert.equal(again[0]?.attempts, 2);
        assert.equal(await store.completeJob(j.id, 'w2', T + 6 * MINUTE), true);
        assert.deepEqual(await store.claimJobs([kind], 'w3', T + 1000 * MINUTE, T + 1001 * MINUTE, 5), []);
        assert.equal((await store.getJob(d.id))?.status, 'dead');
      });

      it('never gives one job to two processes claiming at once', async () => {
        const other = await backend.create();
        const kind = uid('kind');
        const jobs = Array.from({ length: 50 }, (_, i) => job(kind, T + i));
        await store.transaction(async (tx) => {
          for (const j of jobs) await tx.enqueueJob(j);
        });
        const claims = await Promise.all(
          Array.from({ length: 40 }, (_, i) => {
            const s = i % 2 ? store : other;
            // Half claim on their own, half inside a transaction that also does other work.
            return i % 4 < 2
              ? s.claimJobs([kind], `w${i}`, T + MINUTE, T + 2 * MINUTE, 3)
              : s.transaction(async (tx) => {
                  const got = await tx.claimJobs([kind], `w${i}`, T + MINUTE, T + 2 * MINUTE, 3);
                  await tx.getAuditHeads();
                  return got;
                });
          }),
        );
        const drained = await store.claimJobs([kind], 'drain', T + MINUTE, T + 2 * MINUTE, 100);
        const all = [...claims.flat(), ...drained];
        const claimed = ids(all);
        assert.equal(new Set(claimed).size, claimed.length, 'a job was claimed twice');
        assert.deepEqual([...claimed].sort(), ids(jobs).sort());
        for (const j of all) assert.equal(j.attempts, 1);
      });
    });

    describe('audit log', () => {
      const verify = async (s: Store) => {
        const v = new AuditVerifier(await s.getAuditHeads());
        let afterSeq = 0;
        for (;;) {
          const page = await s.listAudit({ afterSeq, limit: 500 });
          for (const e of page) v.push(e);
          const last = page[page.length - 1];
          if (!last) break;
          afterSeq = last.seq;
        }
        return v.finish();
      };

      it("appends to the thread's chain at consecutive positions, each event linked to the one before", async () => {
        const threadId = uid('thr');
        const requestId = uid('req');
        const chain = auditChainFor(threadId);
        const head = (await store.getAuditHeads()).find((h) => h.chain === chain);
        assert.ok(head);
        const inputs: AuditEventInput[] = [
          {
            type: 'interrupted',
            actor: 'agent:bot',
            threadId,
            requestId,
            payload: { tool: 'refund', amount: 250.5, note: '✓ <script>' },
          },
          { type: 'notified', actor: 'system:notify', threadId, requestId },
          { type: 'approved', actor: 'reviewer:rev-1', requestId, payload: { version: 1 } },
        ];
        await store.appendAudit(inputs, T + 7);
        const events = await store.listAudit({ requestId });
        assert.deepEqual(
          events.map((e) => [e.chain, e.chainSeq]),
          [
            [chain, head.seq + 1],
            [chain, head.seq + 2],
            [chain, head.seq + 3],
          ],
        );
        const [s1, s2, s3] = events.map((e) => e.seq) as [number, number, number];
        assert.ok(s1 > 0 && s2 > s1 && s3 > s2, 'log positions increase');
        assert.equal(events[0]?.prevHash, head.hash);
        assert.equal(events[1]?.prevHash, events[0]?.hash);
        assert.equal(events[2]?.prevHash, events[1]?.hash);
        assert.deepEqual(
          (await store.getAuditHeads()).find((h) => h.chain === chain),
          { chain, seq: head.seq + 3, hash: events[2]?.hash },
        );
        assert.deepEqual(events[1]?.payload, {});
        assert.equal(events[2]?.threadId, null);
        const logSize = (await store.listAudit({})).length;
        await store.appendAudit([], T);
        assert.equal((await store.listAudit({})).length, logSize);

        assert.deepEqual(await store.listAudit({ requestId }), events);
        assert.deepEqual(await store.listAudit({ threadId }), events.slice(0, 2));
        assert.deepEqual(await store.listAudit({ afterSeq: s1, limit: 1 }), events.slice(1, 2));
        const all = await store.listAudit({});
        const v = await verify(store);
        assert.equal(v.ok, true, JSON.stringify(v));
        assert.deepEqual(v.ok && [v.events, v.headSeq], [all.length, all.at(-1)!.seq]);
      });

      it("one call over several threads (the sweeper's batch) puts each event in its own thread's chain", async () => {
        const threads = Array.from({ length: 6 }, () => uid('thr'));
        await store.appendAudit(
          threads.map((threadId, i) => ({ type: 'expired', actor: 'system:sweeper', threadId, payload: { i } })),
          T + 9,
        );
        const events = (await Promise.all(threads.map((threadId) => store.listAudit({ threadId })))).flat();
        assert.deepEqual(
          events.map((e) => e.chain),
          threads.map((t) => auditChainFor(t)),
        );
        assert.deepEqual(
          events.map((e) => e.payload),
          threads.map((_, i) => ({ i })),
        );
        const v = await verify(store);
        assert.equal(v.ok, true, JSON.stringify(v));
      });

      it('keeps one unbroken chain when two processes append at once', async () => {
        const other = await backend.create();
        const threadId = uid('thr');
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 ? store : other).transaction(async (tx) => {
              await tx.appendAudit(
                [
                  { type: 'approved', actor: `reviewer:r${i}`, threadId, payload: { i } },
                  { type: 'resumed', actor: 'system:worker', threadId, payload: { i } },
                ],
                T + i,
              );
              await tx.enqueueJob(job(uid('kind'), T, { threadId }));
              return i;
            }),
          ),
        );
        const logged = await store.listAudit({ threadId });
        const ofCall = (i: number) => logged.filter((e) => (e.payload as { i?: number }).i === i);
        for (const [a, b] of results.map(ofCall)) {
          assert.equal(b?.chainSeq, (a?.chainSeq ?? 0) + 1);
          assert.ok((b?.seq ?? 0) > (a?.seq ?? 0));
        }
        const seqs = logged.map((e) => e.seq).sort((x, y) => x - y);
        assert.equal(new Set(seqs).size, 80);
        assert.equal((await store.listAudit({ threadId })).length, 80);
        const result = await verify(store);
        assert.equal(result.ok, true, JSON.stringify(result));
        assert.deepEqual(await other.getAuditHeads(), await store.getAuditHeads());
      });

      it('keeps one chain when two processes append outside a transaction', async () => {
        const other = await backend.create();
        const threadId = uid('thr');
        await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            (i % 2 ? store : other).appendAudit(
              [
                { type: 'executed', actor: 'system:worker', threadId, payload: { i } },
                { type: 'thread_completed', actor: 'system:worker', threadId, payload: { i } },
              ],
              T + i,
            ),
          ),
        );
        assert.equal((await store.listAudit({ threadId })).length, 60);
        const result = await verify(store);
        assert.equal(result.ok, true, JSON.stringify(result));
      });
    });

    describe('reviewers', () => {
      it('finds a reviewer by token hash, and revokes once', async () => {
        const r = {
          id: uid('rev'),
          name: 'Dana Ökonom',
          roles: ['finance', 'support'],
          tokenHash: uid('hash'),
          revoked: false,
          createdAt: T,
        };
        await store.insertReviewer(r);
        assert.deepEqual(await store.getReviewerByTokenHash(r.tokenHash), r);
        assert.deepEqual(await store.getReviewer(r.id), r);
        assert.equal(await store.getReviewerByTokenHash(uid('hash')), undefined);
        assert.equal(await store.getReviewer(uid('rev')), undefined);
        assert.ok((await store.listReviewers()).some((x) => x.id === r.id));
        await assert.rejects(store.insertReviewer({ ...r, id: uid('rev') }));

        assert.equal(await store.revokeReviewer(r.id), true);
        assert.equal(await store.revokeReviewer(r.id), false);
        assert.equal(await store.revokeReviewer(uid('rev')), false);
        assert.deepEqual(await store.getReviewerByTokenHash(r.tokenHash), { ...r, revoked: true });
      });
    });

    describe('browser sessions', () => {
      it('stores a session by hash, finds it, and ends it once', async () => {
        const s = { idHash: uid('sh'), reviewerId: uid('rev'), createdAt: T, expiresAt: T + 60 * MINUTE };
        await store.insertSession(s);
        assert.deepEqual(await store.getSession(s.idHash), s);
        assert.equal(await store.getSession(uid('sh')), undefined);
        await assert.rejects(store.insertSession({ ...s, reviewerId: uid('rev') }), 'the hash is unique');
        assert.equal(await store.deleteSession(s.idHash), true);
        assert.equal(await store.deleteSession(s.idHash), false);
        assert.equal(await store.getSession(s.idHash), undefined);
      });

      it('drops expired sessions, keeping live ones; in a transaction, with the rest of it', async () => {
        const reviewerId = uid('rev');
        // Far in the past and far in the future, so rows of other tests never sit between them.
        const old = [1, 2].map((i) => ({ idHash: uid('sh'), reviewerId, createdAt: 1_000 + i, expiresAt: 2_000 + i }));
        const live = { idHash: uid('sh'), reviewerId, createdAt: T, expiresAt: T * 2 };
        await store.transaction(async (tx) => {
          for (const s of [...old, live]) await tx.insertSession(s);
        });
        const dropped = await store.deleteExpiredSessions(2_002);
        assert.ok(dropped >= 2, `dropped ${dropped}`);
        for (const s of old) assert.equal(await store.getSession(s.idHash), undefined);
        assert.deepEqual(await store.getSession(live.idHash), live);

        const rolledBack = { idHash: uid('sh'), reviewerId, createdAt: T, expiresAt: T * 2 };
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.insertSession(rolledBack);
            throw new Error('abort');
          }),
          /abort/,
        );
        assert.equal(await store.getSession(rolledBack.idHash), undefined, 'rolled back with its transaction');
      });
    });
  });
}
