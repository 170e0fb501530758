import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashEvent, type AuditEvent } from '../../src/core/index.ts';
import { createReviewer, hashToken } from '../../src/server/index.ts';
import type { Store } from '../../src/store/types.ts';
import { allBackends, TEST_DATABASE_URL, type BackendInitializer } from '../../src/testing/backends.ts';
import { startFakePaymentsServer } from '../../src/testing/fake-payments-server.ts';
import { serviceProcess } from '../../src/testing/service-process.ts';
import { startApiFixture, type ApiFixture } from './api-fixture.ts';
import { CHAOS_CONFIG, runCli } from './crash-harness.ts';
import { recordResult, SCALE } from './results.ts';
import { startTraffic, type ReviewerCredential } from './traffic.ts';

// Who may decide, proven over HTTP: every refusal (no token, a revoked token, a
// wrong role, self-approval, a second vote toward a quorum) is refused AND
// audited. Tokens exist only as hashes and never reach a log. Any change to the
// audit rows made directly in the database is caught by `interlock audit verify`.
// Single status-code cases: src/server/approvals.int.test.ts; CLI: src/cli/cli.int.test.ts.

type ErrorBody = { error: { code: string } };

for (const backend of allBackends()) {
  describe(`decision refusals are refused and audited on ${backend.name}`, () => {
    let f: ApiFixture;
    let agentToken: string;
    before(async () => {
      f = await startApiFixture(backend);
      // A reviewer whose identity is the agent's: what the agent proposes, it may not approve.
      agentToken = (
        await createReviewer(f.store, { id: 'agent:chaos', name: 'The agent itself', roles: ['supervisor'] })
      ).token;
    });
    after(async () => {
      try {
        await f?.close();
      } finally {
        await backend.destroy();
      }
    });

    const decide = (
      id: string,
      token: string | null,
      body: Record<string, unknown>,
      headers?: Record<string, string>,
    ) =>
      f.call<ErrorBody & { outcome?: string }>(`/api/v1/approvals/${id}/decision`, token, {
        body,
        ...(headers ? { headers } : {}),
      });
    const refusals = async (id: string) =>
      (await f.store.listAudit({ requestId: id }))
        .filter((e) => e.type === 'refused')
        .map((e) => ({ actor: e.actor, code: e.payload.code }));

    it('no token, a malformed or unknown token, a revoked token: 401, and each attempt audited', async () => {
      const id = await f.propose(`sec-${backend.name}-1`, { orderId: 'ORD-1', amount: 100 });
      const req = await f.interlock.getRequestOrThrow(id);
      const g = { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash };
      const revoked = await createReviewer(f.store, { name: 'Gone', roles: ['supervisor'] });
      await f.store.revokeReviewer(revoked.reviewer.id);
      const before = await f.snapshot();
      assert.equal((await decide(id, null, g)).body.error.code, 'unauthorized');
      assert.equal((await decide(id, `il_${'A'.repeat(43)}`, g)).body.error.code, 'unauthorized');
      assert.equal((await decide(id, null, g, { authorization: 'Basic c2FtOnB3' })).body.error.code, 'unauthorized');
      const r = await decide(id, revoked.token, g);
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, 'token_revoked');
      assert.doesNotMatch(
        JSON.stringify(r.body),
        new RegExp(revoked.reviewer.id),
        'whose token it was stays in the audit, not in the answer',
      );
      assert.deepEqual(await refusals(id), [
        { actor: 'anonymous', code: 'unauthorized' },
        { actor: 'anonymous', code: 'unauthorized' },
        { actor: 'anonymous', code: 'unauthorized' },
        { actor: `reviewer:${revoked.reviewer.id}`, code: 'token_revoked' },
      ]);
      const after = JSON.parse(await f.snapshot()) as { requests: unknown; votes: unknown; jobs: unknown };
      const was = JSON.parse(before) as typeof after;
      assert.deepEqual(
        [after.requests, after.votes, after.jobs],
        [was.requests, was.votes, was.jobs],
        'nothing but the audit changed',
      );
      assert.equal((await f.interlock.verifyAudit()).ok, true);
      // Attempts on requests that do not exist are not recorded: nobody can write junk into the log.
      const heads = await f.store.getAuditHeads();
      assert.equal((await decide('apr_nope', null, g)).status, 401);
      assert.deepEqual(await f.store.getAuditHeads(), heads);
    });

    it('a flood of anonymous attempts is refused every time but audited at a bounded rate', async () => {
      const id = await f.propose(`sec-${backend.name}-flood`, { orderId: 'ORD-F', amount: 100 });
      const req = await f.interlock.getRequestOrThrow(id);
      const before = (await f.store.listAudit({ limit: 100_000 })).filter(
        (e) => e.type === 'refused' && e.actor === 'anonymous',
      ).length;
      for (let i = 0; i < 40; i++)
        assert.equal(
          (await decide(id, null, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }))
            .status,
          401,
        );
      const anonymous = (await f.store.listAudit({ limit: 100_000 })).filter(
        (e) => e.type === 'refused' && e.actor === 'anonymous',
      ).length;
      // 20 per minute for all anonymous callers together (three were spent by the test above).
      assert.ok(
        anonymous - before >= 10 && anonymous <= 20,
        `audited ${anonymous - before} of 40 attempts (${anonymous} in all)`,
      );
      assert.equal((await f.interlock.getRequestOrThrow(id)).status, 'pending');
    });

    it('a wrong role, self-approval, and a second vote toward a quorum: 403 with its code, audited, nothing else changed', async () => {
      const [sam] = f.reviewers;
      const fay = f.reviewers[4]!;
      const id = await f.propose(`sec-${backend.name}-2`, { orderId: 'ORD-2', amount: 100 });
      let req = await f.interlock.getRequestOrThrow(id);
      const g = () => ({ type: 'approve', expectedVersion: req.version, actionHash: req.actionHash });
      const before = await f.snapshot();
      const wrongRole = await decide(id, fay.token, g());
      assert.deepEqual([wrongRole.status, wrongRole.body.error.code], [403, 'forbidden_role']);
      const self = await decide(id, agentToken, g());
      assert.deepEqual([self.status, self.body.error.code], [403, 'self_approval']);
      // An edit is refused for the same reasons before its arguments are looked at.
      const selfEdit = await decide(id, agentToken, {
        type: 'edit',
        expectedVersion: req.version,
        actionHash: req.actionHash,
        args: { orderId: 'ORD-2', amount: 99 },
      });
      assert.equal(selfEdit.body.error.code, 'self_approval');
      assert.deepEqual(await refusals(id), [
        { actor: `reviewer:${fay.id}`, code: 'forbidden_role' },
        { actor: 'reviewer:agent:chaos', code: 'self_approval' },
        { actor: 'reviewer:agent:chaos', code: 'self_approval' },
      ]);
      const after = JSON.parse(await f.snapshot()) as { requests: unknown; votes: unknown; jobs: unknown };
      const was = JSON.parse(before) as typeof after;
      assert.deepEqual([after.requests, after.votes, after.jobs], [was.requests, was.votes, was.jobs]);
      assert.equal((await decide(id, sam!.token, g())).status, 200, 'the right reviewer still can');

      // $900 needs two different finance reviewers.
      const q = await f.propose(`sec-${backend.name}-3`, { orderId: 'ORD-3', amount: 900 });
      req = await f.interlock.getRequestOrThrow(q);
      const first = await f.call<{ outcome: string; request: { version: number } }>(
        `/api/v1/approvals/${q}/decision`,
        fay.token,
        { body: g() },
      );
      assert.equal(first.body.outcome, 'pending');
      req = await f.interlock.getRequestOrThrow(q);
      const twice = await decide(q, fay.token, g());
      assert.deepEqual([twice.status, twice.body.error.code], [403, 'duplicate_reviewer']);
      // Only a second approval is a duplicate: the same reviewer may still change their mind to reject,
      // respond or edit while the request is pending (src/engine/quorum-and-edits.int.test.ts).
      assert.deepEqual(await refusals(q), [{ actor: `reviewer:${fay.id}`, code: 'duplicate_reviewer' }]);
      assert.deepEqual(
        [(await f.interlock.getRequestOrThrow(q)).approvalsReceived, (await f.interlock.getRequestOrThrow(q)).status],
        [1, 'pending'],
      );
      const second = await f.call<{ outcome: string }>(`/api/v1/approvals/${q}/decision`, f.reviewers[5]!.token, {
        body: g(),
      });
      assert.equal(second.body.outcome, 'authorized');
      assert.equal((await f.interlock.verifyAudit()).ok, true);
    });
  });

  describe(`tokens and secrets on ${backend.name}`, () => {
    it(
      'tokens are stored only as hashes, and no token or database password ever reaches the service output',
      { timeout: 120_000 },
      async () => {
        const secret = await secretEnv(backend);
        const store = await backend.create();
        const payments = await startFakePaymentsServer();
        const env = { ...backend.env(), ...secret.env, PAYMENTS_URL: payments.url, INTERLOCK_LEASE_MS: '1000' };
        const service = await serviceProcess({ config: CHAOS_CONFIG, env });
        try {
          // Reviewers created with the CLI: the token is printed once, by that command, and nowhere else.
          const tokens: ReviewerCredential[] = [];
          for (const [name, roles] of [
            ['Olga', 'operator'],
            ['Sam', 'supervisor'],
            ['Sue', 'supervisor'],
            ['Fay', 'finance'],
            ['Fin', 'finance'],
            ['Rex', 'supervisor'],
          ] as const) {
            const r = await runCli(['reviewers', 'add', '--name', name, '--roles', roles], env);
            assert.equal(r.exitCode, 0, r.output);
            const token = /token: (il_\S+)/.exec(r.output)?.[1];
            const id = /reviewer (\S+) /.exec(r.output)?.[1];
            assert.ok(token && id, r.output);
            tokens.push({ id, token, roles: [roles] });
          }
          const rex = tokens.pop()!;
          assert.equal((await runCli(['reviewers', 'revoke', rex.id], env)).exitCode, 0);
          await service.start();
          const traffic = startTraffic({
            url: service.url,
            operatorToken: tokens[0]!.token,
            reviewers: tokens.slice(1),
            threadsPerSecond: 10,
            prefix: `sec-${backend.name}`,
            seed: 7,
          });
          // Misuse while it runs: a revoked token, a token in the URL, a malformed header, then a crash and a restart.
          await new Promise((r) => setTimeout(r, 1500));
          for (const t of [rex.token, tokens[1]!.token]) {
            await fetch(`${service.url}/api/v1/approvals?token=${t}`).then((r) => r.arrayBuffer());
            await fetch(`${service.url}/api/v1/approvals`, { headers: { authorization: `Bearer ${t}` } }).then((r) =>
              r.arrayBuffer(),
            );
            await fetch(`${service.url}/api/v1/approvals`, { headers: { authorization: `Token ${t}` } }).then((r) =>
              r.arrayBuffer(),
            );
          }
          await service.kill();
          await service.start();
          await new Promise((r) => setTimeout(r, 1500));
          await traffic.stop();
          await service.stop();
          assert.ok(traffic.stats.decisionsAccepted > 0, 'decisions were made with the tokens');

          for (const t of [...tokens, rex])
            assert.ok(!service.output.includes(t.token), `a token appears in the service output:\n${service.output}`);
          if (secret.password)
            assert.ok(!service.output.includes(secret.password), 'the database password appears in the service output');
          // The database holds each token's SHA-256 and nothing else of it, in any table.
          const rows = await store.unsafeQuery('SELECT id, token_hash FROM il_reviewers');
          for (const t of [...tokens, rex]) {
            assert.equal(rows.find((r) => r.id === t.id)?.token_hash, hashToken(t.token));
            for (const table of [
              'il_reviewers',
              'il_audit',
              'il_requests',
              'il_messages',
              'il_jobs',
              'il_threads',
              'il_checkpoints',
              'il_executions',
              'il_votes',
            ]) {
              const dump = JSON.stringify(await store.unsafeQuery(`SELECT * FROM ${table}`));
              assert.ok(!dump.includes(t.token), `a token is stored in ${table}`);
            }
          }
        } finally {
          await service.kill();
          await payments.close();
          await backend.destroy();
        }
      },
    );
  });

  describe(`audit tampering is detected by \`interlock audit verify\` on ${backend.name}`, () => {
    let store: Store;
    let f: ApiFixture;
    let original: Array<Record<string, unknown>>;
    let heads: Array<Record<string, unknown>>;
    let tried = 0;
    before(async () => {
      f = await startApiFixture(backend);
      store = f.store;
      // A real chain: pauses, decisions of each kind, a refusal.
      for (let i = 0; i < 8; i++) {
        const id = await f.propose(`tamper-${backend.name}-${i}`, { orderId: `ORD-${i}`, amount: i % 2 ? 900 : 100 });
        const req = await f.interlock.getRequestOrThrow(id);
        const type = ['approve', 'reject', 'respond', 'approve'][i % 4]!;
        const reviewer = f.reviewers[i % 2 ? 4 : 0]!;
        await f.call(`/api/v1/approvals/${id}/decision`, reviewer.token, {
          body: {
            type,
            expectedVersion: req.version,
            actionHash: req.actionHash,
            ...(type === 'approve' ? {} : { message: `<b>${type}</b>` }),
          },
        });
      }
      original = await store.unsafeQuery('SELECT * FROM il_audit ORDER BY seq');
      heads = await store.unsafeQuery('SELECT * FROM il_audit_chains');
      assert.ok(original.length >= 16);
    });
    after(async () => {
      recordResult(`audit-tamper-${backend.name}`, { tried, events: original.length });
      try {
        await f?.close();
      } finally {
        await backend.destroy();
      }
    });

    async function restore(): Promise<void> {
      await store.unsafeQuery('DELETE FROM il_audit');
      for (const r of original) {
        await store.unsafeQuery(
          'INSERT INTO il_audit (seq, chain, chain_seq, id, type, actor, at, thread_id, request_id, payload, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
          [
            Number(r.seq),
            Number(r.chain),
            Number(r.chain_seq),
            r.id,
            r.type,
            r.actor,
            Number(r.at),
            r.thread_id,
            r.request_id,
            r.payload,
            r.prev_hash,
            r.hash,
          ],
        );
      }
      for (const h of heads)
        await store.unsafeQuery('UPDATE il_audit_chains SET seq = $1, hash = $2 WHERE chain = $3', [
          Number(h.seq),
          h.hash,
          Number(h.chain),
        ]);
    }
    const event = (seq: number) => original.find((r) => Number(r.seq) === seq)!;
    const last = () => Number(original.at(-1)!.seq);
    /** The event at `offset` positions from `seq`'s in the same chain (the chain links only its own events). */
    const inChain = (seq: number, offset: number): number | null => {
      const e = event(seq);
      const r = original.find((x) => x.chain === e.chain && Number(x.chain_seq) === Number(e.chain_seq) + offset);
      return r ? Number(r.seq) : null;
    };
    /** An event whose chain holds another after it (or before it), and that other one. */
    const pairAt = (k: number): [number, number] => {
      for (const seq of [k, ...original.map((r) => Number(r.seq))]) {
        const next = inChain(seq, 1) ?? inChain(seq, -1);
        if (next !== null) return [Math.min(seq, next), Math.max(seq, next)];
      }
      throw new Error('no chain holds two events');
    };

    /** The tampering kinds, each applied at event `k`, with the event verification must name. */
    const TAMPER: Record<
      string,
      { apply: (k: number) => Promise<void>; names: (k: number) => number; problem: RegExp }
    > = {
      'change the payload': {
        apply: (k) =>
          store
            .unsafeQuery('UPDATE il_audit SET payload = $1 WHERE seq = $2', [
              JSON.stringify({ approvals: 99, forged: true }),
              k,
            ])
            .then(() => undefined),
        names: (k) => k,
        problem: /content changed/,
      },
      'change the actor': {
        apply: (k) =>
          store
            .unsafeQuery(`UPDATE il_audit SET actor = 'reviewer:someone-else' WHERE seq = $1`, [k])
            .then(() => undefined),
        names: (k) => k,
        problem: /content changed/,
      },
      'change the type': {
        apply: (k) =>
          store
            .unsafeQuery(
              `UPDATE il_audit SET type = CASE WHEN type = 'approved' THEN 'rejected' ELSE 'approved' END WHERE seq = $1`,
              [k],
            )
            .then(() => undefined),
        names: (k) => k,
        problem: /content changed/,
      },
      'change the time': {
        apply: (k) =>
          store.unsafeQuery('UPDATE il_audit SET at = at - 86400000 WHERE seq = $1', [k]).then(() => undefined),
        names: (k) => k,
        problem: /content changed/,
      },
      'move an event to another chain': {
        apply: (k) =>
          store
            .unsafeQuery('UPDATE il_audit SET chain = CASE WHEN chain = 1 THEN 2 ELSE 1 END WHERE seq = $1', [k])
            .then(() => undefined),
        // Named where it no longer fits: at itself, or earlier where its old chain now has a gap.
        names: (k) => k,
        problem: /content changed|missing|does not link|reordered/,
      },
      'rewrite an event and re-hash it': {
        apply: async (k) => {
          const r = event(k);
          const forged: Omit<AuditEvent, 'hash'> = {
            seq: k,
            chain: Number(r.chain),
            chainSeq: Number(r.chain_seq),
            id: String(r.id),
            type: r.type as AuditEvent['type'],
            actor: 'reviewer:forger',
            at: Number(r.at),
            threadId: (r.thread_id as string | null) ?? null,
            requestId: (r.request_id as string | null) ?? null,
            payload: JSON.parse(String(r.payload)) as Record<string, unknown>,
            prevHash: String(r.prev_hash),
          };
          await store.unsafeQuery('UPDATE il_audit SET actor = $1, hash = $2 WHERE seq = $3', [
            forged.actor,
            hashEvent(forged),
            k,
          ]);
        },
        // The forged event is self-consistent; its chain breaks at the next link (or at the head for the chain's last one).
        names: (k) => inChain(k, 1) ?? k,
        problem: /does not link|does not match the recorded head/,
      },
      'delete an event': {
        apply: (k) => store.unsafeQuery('DELETE FROM il_audit WHERE seq = $1', [k]).then(() => undefined),
        // The next event of its chain names the gap; without one, the chain's head does, at the last good event
        // (a number that exists: a 54-event log is never "broken at #55").
        names: (k) => inChain(k, 1) ?? inChain(k, -1) ?? 0,
        problem: /missing \(deleted\)|were deleted/,
      },
      'delete the last event of the log': {
        apply: () => store.unsafeQuery('DELETE FROM il_audit WHERE seq = $1', [last()]).then(() => undefined),
        names: () => inChain(last(), -1) ?? 0,
        problem:
          /the log ends at event \d+ \(log #\d+\) but the recorded head is event \d+: events after \d+ were deleted/,
      },
      'swap two events of a chain': {
        apply: async (k) => {
          const [a, b] = pairAt(k);
          await store.unsafeQuery('UPDATE il_audit SET seq = -seq WHERE seq IN ($1, $2)', [a, b]);
          await store.unsafeQuery('UPDATE il_audit SET seq = $1 WHERE seq = $2', [b, -a]);
          await store.unsafeQuery('UPDATE il_audit SET seq = $1 WHERE seq = $2', [a, -b]);
        },
        names: (k) => pairAt(k)[0],
        // A swap is a reorder: both events are still there.
        problem: /reordered/,
      },
      'append a forged event': {
        apply: async () => {
          const r = event(last());
          const forged: Omit<AuditEvent, 'hash'> = {
            seq: last() + 1,
            chain: Number(r.chain),
            chainSeq: Number(r.chain_seq) + 1,
            id: 'evt_forged',
            type: 'approved',
            actor: 'reviewer:forger',
            at: Number(r.at) + 1,
            threadId: null,
            requestId: null,
            payload: {},
            prevHash: String(r.hash),
          };
          await store.unsafeQuery(
            'INSERT INTO il_audit (seq, chain, chain_seq, id, type, actor, at, thread_id, request_id, payload, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, $8, $9, $10)',
            [
              forged.seq,
              forged.chain,
              forged.chainSeq,
              forged.id,
              forged.type,
              forged.actor,
              forged.at,
              '{}',
              forged.prevHash,
              hashEvent(forged),
            ],
          );
        },
        names: () => last() + 1,
        problem: /goes on to event/,
      },
    };

    for (const [what, t] of Object.entries(TAMPER)) {
      it(`${what}: exit 1, naming the first broken event`, async () => {
        const k = 3 + Math.floor(original.length / 2);
        await t.apply(k);
        tried++;
        const r = await runCli(['audit', 'verify'], backend.env());
        await restore();
        assert.equal(r.exitCode, 1, r.output);
        assert.match(r.output, new RegExp(`BROKEN at event #${t.names(k)}\\b`), r.output);
        assert.match(r.output, t.problem, r.output);
        assert.equal((await f.interlock.verifyAudit()).ok, true, 'restored');
      });
    }

    it('a chain rewritten and re-hashed together with its head row passes alone, and is caught against heads kept from before', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'interlock-heads-'));
      try {
        const savedRun = await runCli(['audit', 'verify', '--json'], backend.env());
        assert.equal(savedRun.exitCode, 0, savedRun.output);
        const savedFile = join(dir, 'heads.json');
        writeFileSync(savedFile, savedRun.output.trim().split('\n').at(-1)!);
        // Forge: change the actor of every event of the chain of the first thread's events, re-link and re-hash them, and the head.
        const chain = Number(original[0]!.chain);
        const rows = original
          .filter((r) => Number(r.chain) === chain)
          .sort((a, b) => Number(a.chain_seq) - Number(b.chain_seq));
        let prevHash = '0'.repeat(64);
        for (const r of rows) {
          const forged: Omit<AuditEvent, 'hash'> = {
            seq: Number(r.seq),
            chain,
            chainSeq: Number(r.chain_seq),
            id: String(r.id),
            type: r.type as AuditEvent['type'],
            actor: 'reviewer:forger',
            at: Number(r.at),
            threadId: (r.thread_id as string | null) ?? null,
            requestId: (r.request_id as string | null) ?? null,
            payload: JSON.parse(String(r.payload)) as Record<string, unknown>,
            prevHash,
          };
          const hash = hashEvent(forged);
          await store.unsafeQuery('UPDATE il_audit SET actor = $1, prev_hash = $2, hash = $3 WHERE seq = $4', [
            forged.actor,
            prevHash,
            hash,
            forged.seq,
          ]);
          prevHash = hash;
        }
        await store.unsafeQuery('UPDATE il_audit_chains SET hash = $1 WHERE chain = $2', [prevHash, chain]);
        tried++;
        const alone = await runCli(['audit', 'verify'], backend.env());
        const against = await runCli(['audit', 'verify', '--against', savedFile], backend.env());
        const bad = join(dir, 'bad.json');
        writeFileSync(bad, '{"heads": [{"chain": "x"}]}');
        const unusable = await runCli(['audit', 'verify', '--against', bad], backend.env());
        await restore();
        assert.equal(alone.exitCode, 0, 'a consistent rewrite passes without saved heads');
        assert.equal(against.exitCode, 1, against.output);
        assert.match(against.output, new RegExp(`chain ${chain}: event \\d+ is not the one the saved head names`));
        assert.equal(unusable.exitCode, 2, unusable.output);
        assert.match(unusable.output, /expected the output of `interlock audit verify --json`/);
        assert.equal(
          (await runCli(['audit', 'verify', '--against', savedFile], backend.env())).exitCode,
          0,
          'restored: the saved heads hold again',
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('every kind of tampering at every position is detected (in-process verification, property-based)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...Object.keys(TAMPER)),
          fc.integer({ min: 1, max: last() }),
          async (what, k) => {
            const t = TAMPER[what]!;
            await t.apply(k);
            tried++;
            const v = await f.interlock.verifyAudit();
            await restore();
            assert.equal(v.ok, false, `${what} at ${k} went unnoticed`);
            if (!v.ok) {
              assert.equal(v.brokenAt.seq, t.names(k), `${what} at ${k}: ${v.brokenAt.problem}`);
              assert.match(v.brokenAt.problem, t.problem);
            }
          },
        ),
        { numRuns: SCALE.heavy ? 400 : 40 },
      );
      assert.equal((await f.interlock.verifyAudit()).ok, true);
    });
  });
}

/** Environment that hands the service a database password to keep secret (PostgreSQL accepts it under trust auth). */
async function secretEnv(
  backend: BackendInitializer,
): Promise<{ env: Record<string, string>; password: string | undefined }> {
  if (backend.name !== 'postgres') return { env: {}, password: undefined };
  const url = new URL(TEST_DATABASE_URL);
  if (url.password) return { env: {}, password: decodeURIComponent(url.password) };
  url.password = 'Sup3r-S3cret-pw';
  return { env: { DATABASE_URL: url.toString() }, password: 'Sup3r-S3cret-pw' };
}
