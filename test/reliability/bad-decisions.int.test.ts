import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import fc from 'fast-check';
import { allBackends } from '../../src/testing/backends.ts';
import { startApiFixture, type ApiFixture } from './api-fixture.ts';
import { recordResult, SCALE } from './results.ts';

// Decision payloads that are wrong in every way fast-check can think of, plus
// the hand-written ones that matter, sent over HTTP to a pending request: each
// gets a clear 4xx with a stable code, and the database is byte-for-byte what
// it was (requests, votes, jobs, executions, audit head).
// Status-code tests of single cases live in src/server/approvals.int.test.ts.
const RUNS = SCALE.heavy ? 1500 : 150;
const TYPES = ['approve', 'edit', 'reject', 'respond'] as const;
const FIELDS = ['type', 'expectedVersion', 'actionHash', 'args', 'message', 'trust'];
const CODES = new Set([
  'invalid_input',
  'stale_version',
  'action_hash_mismatch',
  'policy_blocked',
  'approval_request_not_found',
  'not_found',
  'payload_too_large',
  'request_expired',
  'already_resolved',
]);

type Body = Record<string, unknown>;

/** POST over a fresh connection and resolve with the answer as soon as it arrives, even if the body is not all sent. */
function postEarlyAnswer(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        answered = true;
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    // The server may close its side while the rest of the body is being written: fine once it answered.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(body);
  });
}
type ErrorBody = { error?: { code: string; message: string } };

/** Anything that is not a positive integer, a non-empty short string, a record or a boolean, as needed. */
const junk = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.anything(), { maxKeys: 3 }),
);

/** Edited arguments the tool schema refuses (strict object: orderId 1..200 chars, amount positive <= 1,000,000, note <= 20,000). */
const schemaBreakingArgs = fc.oneof(
  fc.record({
    orderId: fc.constant('ORD-1'),
    amount: fc.oneof(
      fc.integer({ max: 0 }),
      fc.double({ max: 0, noNaN: true }),
      fc.string(),
      fc.constant(null),
      fc.integer({ min: 1_000_001 }),
    ),
  }),
  fc.record({
    orderId: fc.oneof(fc.constant(''), fc.integer(), fc.string({ minLength: 201, maxLength: 300 })),
    amount: fc.constant(50),
  }),
  fc.record({ orderId: fc.constant('ORD-1') }),
  fc.record({ amount: fc.constant(50) }),
  fc.record({ orderId: fc.constant('ORD-1'), amount: fc.constant(50), extra: junk }),
  fc.record({
    orderId: fc.constant('ORD-1'),
    amount: fc.constant(50),
    note: fc.oneof(fc.integer(), fc.constant('n'.repeat(20_001))),
  }),
);

const DEFECTS = [
  'type',
  'version-type',
  'version-future',
  'hash',
  'hash-type',
  'extra',
  'missing',
  'message-type',
  'message-long',
  'trust-type',
  'args-shape',
  'args-on-non-edit',
  'edit-schema',
  'edit-block',
] as const;
type Defect = (typeof DEFECTS)[number];

/** A decision with one to three defects, built on the valid decision of its type. */
const badDecision = fc.record({
  type: fc.constantFrom(...TYPES),
  defects: fc.uniqueArray(fc.constantFrom(...DEFECTS), { minLength: 1, maxLength: 3 }),
  junk,
  notPositiveInt: junk.filter((v) => !(typeof v === 'number' && Number.isInteger(v) && v > 0)),
  notType: junk.filter((v) => !(TYPES as readonly unknown[]).includes(v)),
  notShortString: fc.oneof(
    junk.filter((v) => typeof v !== 'string'),
    fc.constant(''),
    fc.string({ minLength: 257, maxLength: 400 }),
  ),
  notBoolean: junk.filter((v) => typeof v !== 'boolean'),
  notString: junk.filter((v) => typeof v !== 'string'),
  notRecord: junk.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)),
  ahead: fc.integer({ min: 1, max: 1_000_000 }),
  hash: fc.string({ minLength: 1, maxLength: 256 }),
  extraKey: fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !FIELDS.includes(k) && k !== '__proto__'),
  missing: fc.constantFrom('type', 'expectedVersion', 'actionHash'),
  longMessage: fc.integer({ min: 10_001, max: 50_000 }),
  badArgs: schemaBreakingArgs,
  blockedAmount: fc.integer({ min: 100_001, max: 1_000_000 }),
});

function build(
  v: typeof badDecision extends fc.Arbitrary<infer T> ? T : never,
  req: { version: number; actionHash: string },
): Body {
  const b: Body = { type: v.type, expectedVersion: req.version, actionHash: req.actionHash };
  if (v.type === 'edit') b.args = { orderId: 'ORD-EDIT', amount: 50 };
  if (v.type === 'reject' || v.type === 'respond') b.message = 'a message';
  const apply: Record<Defect, () => void> = {
    type: () => (b.type = v.notType),
    'version-type': () => (b.expectedVersion = v.notPositiveInt),
    'version-future': () => (b.expectedVersion = req.version + v.ahead),
    hash: () => (b.actionHash = v.hash === req.actionHash ? `${v.hash}x` : v.hash),
    'hash-type': () => (b.actionHash = v.notShortString),
    extra: () => (b[v.extraKey] = v.junk),
    missing: () => delete b[v.missing],
    'message-type': () => (b.message = v.notString),
    'message-long': () => (b.message = 'm'.repeat(v.longMessage)),
    'trust-type': () => (b.trust = v.notBoolean),
    'args-shape': () => {
      b.type = 'edit';
      b.args = v.notRecord;
    },
    'args-on-non-edit': () => {
      b.type = 'approve';
      delete b.message;
      b.args = { orderId: 'ORD-1', amount: 50 };
    },
    'edit-schema': () => {
      b.type = 'edit';
      b.args = v.badArgs;
    },
    'edit-block': () => {
      b.type = 'edit';
      b.args = { orderId: 'ORD-1', amount: v.blockedAmount };
    },
  };
  for (const d of v.defects) apply[d]();
  // A later defect may have replaced the message; a non-string message must stay one.
  if (v.defects.includes('message-type')) b.message = v.notString;
  return b;
}

for (const backend of allBackends()) {
  describe(`bad decisions over HTTP on ${backend.name}`, () => {
    let f: ApiFixture;
    let tried = 0;
    const codes: Record<string, number> = {};
    let supervisor: string;
    before(async () => {
      f = await startApiFixture(backend);
      supervisor = f.reviewers[0]!.token;
    });
    after(async () => {
      recordResult(`bad-decisions-${backend.name}`, { tried, codes });
      try {
        await f?.close();
      } finally {
        await backend.destroy();
      }
    });

    /** Send `body` (or raw text) as a decision and check: 4xx, a known code, nothing changed. */
    async function refusedAndUnchanged(
      id: string,
      body: { json?: unknown; raw?: string },
      token = supervisor,
      expect?: { status?: number; code?: string },
    ): Promise<ErrorBody> {
      const before = await f.snapshot();
      const r = await f.call<ErrorBody>(
        `/api/v1/approvals/${encodeURIComponent(id)}/decision`,
        token,
        body.raw !== undefined
          ? { method: 'POST', rawBody: body.raw, headers: { 'content-type': 'application/json' } }
          : { body: body.json },
      );
      tried++;
      const code = r.body.error?.code ?? `(status ${r.status})`;
      codes[code] = (codes[code] ?? 0) + 1;
      assert.ok(
        r.status >= 400 && r.status < 500,
        `expected a 4xx for ${JSON.stringify(body).slice(0, 300)}, got ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`,
      );
      assert.ok(CODES.has(code), `unexpected code ${code} for ${JSON.stringify(body).slice(0, 300)}`);
      assert.equal(typeof r.body.error?.message, 'string');
      if (expect?.status) assert.equal(r.status, expect.status, JSON.stringify(r.body));
      if (expect?.code) assert.equal(code, expect.code, JSON.stringify(r.body));
      assert.equal(
        await f.snapshot(),
        before,
        `the database changed after a refused decision: ${JSON.stringify(body).slice(0, 300)}`,
      );
      return r.body;
    }

    it(
      `refuses ${RUNS} generated decisions with one to three defects each, changing nothing`,
      { timeout: 600_000 },
      async () => {
        const id = await f.propose(`bad-${backend.name}-1`, { orderId: 'ORD-1', amount: 100 });
        const req = await f.interlock.getRequestOrThrow(id);
        await fc.assert(
          fc.asyncProperty(badDecision, async (v) => {
            await refusedAndUnchanged(id, { json: build(v, req) });
          }),
          { numRuns: RUNS },
        );
        assert.equal((await f.interlock.getRequestOrThrow(id)).status, 'pending', 'still pending and decidable');
        assert.deepEqual(f.logged, [], 'no bad input is a server fault');
      },
    );

    it('refuses bodies that are not a JSON object: malformed JSON, arrays, scalars', async () => {
      const id = await f.propose(`bad-${backend.name}-2`, { orderId: 'ORD-2', amount: 100 });
      const notJson = fc.string({ maxLength: 200 }).filter((s) => {
        try {
          JSON.parse(s);
          return false;
        } catch {
          return true;
        }
      });
      await fc.assert(
        fc.asyncProperty(
          notJson,
          async (s) =>
            void (await refusedAndUnchanged(id, { raw: s }, supervisor, { status: 400, code: 'invalid_input' })),
        ),
        { numRuns: Math.ceil(RUNS / 3) },
      );
      const scalars = fc.oneof(
        fc.integer(),
        fc.string(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.anything(), { maxLength: 4 }),
      );
      await fc.assert(
        fc.asyncProperty(
          scalars,
          async (s) =>
            void (await refusedAndUnchanged(id, { raw: JSON.stringify(s) }, supervisor, {
              status: 400,
              code: 'invalid_input',
            })),
        ),
        { numRuns: Math.ceil(RUNS / 3) },
      );
      for (const raw of [
        '',
        ' ',
        '{',
        '{"type":"approve",}',
        '\u0000',
        '{"type":"approve","type":"reject"}',
        '{"__proto__":{"type":"approve"}}',
      ]) {
        await refusedAndUnchanged(id, { raw }, supervisor, { status: 400 });
      }
    });

    // Sent with node:http, which reads the answer as soon as it comes: the server answers 413 from the
    // Content-Length alone, before the body is read, and fetch (undici) reports that early answer to a
    // request it is still sending as "other side closed" instead of the response.
    it('refuses bodies over 64 KiB with 413, of any size up to 2 MiB', async () => {
      const id = await f.propose(`bad-${backend.name}-3`, { orderId: 'ORD-3', amount: 100 });
      const req = await f.interlock.getRequestOrThrow(id);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 64 * 1024 + 1, max: 2 * 1024 * 1024 }), async (size) => {
          const before = await f.snapshot();
          const body = JSON.stringify({
            type: 'reject',
            expectedVersion: req.version,
            actionHash: req.actionHash,
            message: 'x'.repeat(size),
          });
          const r = await postEarlyAnswer(`${f.url}/api/v1/approvals/${id}/decision`, supervisor, body);
          tried++;
          codes.payload_too_large = (codes.payload_too_large ?? 0) + 1;
          assert.equal(r.status, 413);
          assert.equal((JSON.parse(r.text) as ErrorBody).error?.code, 'payload_too_large');
          assert.equal(await f.snapshot(), before);
        }),
        { numRuns: SCALE.heavy ? 100 : 15 },
      );
    });

    it('answers 404 for unknown request ids, whatever they look like', async () => {
      const anyBody = { type: 'approve', expectedVersion: 1, actionHash: 'a'.repeat(64) };
      await fc.assert(
        fc.asyncProperty(
          fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s !== '.' && s !== '..'),
          async (id) => {
            await refusedAndUnchanged(`apr_nope_${id}`, { json: anyBody }, supervisor, { status: 404 });
          },
        ),
        { numRuns: Math.ceil(RUNS / 3) },
      );
      // An edit of an unknown request is refused before its arguments are looked at.
      await refusedAndUnchanged(
        'apr_does_not_exist',
        { json: { ...anyBody, type: 'edit', args: { orderId: 'x', amount: 1 } } },
        supervisor,
        { status: 404, code: 'approval_request_not_found' },
      );
    });

    it('expired, future and past versions: 410 and 409, nothing changed', async () => {
      // 300..399 is the band with a 2 s timeout; no sweeper runs here, so the request stays pending past its expiry.
      const expired = await f.propose(`bad-${backend.name}-4`, { orderId: 'ORD-4', amount: 350 });
      const live = await f.propose(`bad-${backend.name}-5`, { orderId: 'ORD-5', amount: 100 });
      const e = await f.interlock.getRequestOrThrow(expired);
      await new Promise((r) => setTimeout(r, Math.max(0, e.expiresAt - Date.now() + 50)));
      for (const type of TYPES) {
        const body = {
          type,
          expectedVersion: e.version,
          actionHash: e.actionHash,
          ...(type === 'edit' ? { args: { orderId: 'ORD-4', amount: 340 } } : {}),
          ...(type === 'respond' || type === 'reject' ? { message: 'late' } : {}),
        };
        await refusedAndUnchanged(expired, { json: body }, supervisor, { status: 410, code: 'request_expired' });
      }
      const l = await f.interlock.getRequestOrThrow(live);
      for (const v of [l.version + 1, l.version + 1000, 2 ** 31]) {
        await refusedAndUnchanged(
          live,
          { json: { type: 'approve', expectedVersion: v, actionHash: l.actionHash } },
          supervisor,
          { status: 409, code: 'stale_version' },
        );
      }
      // A version that was current once: approve, then replay the same click.
      const ok = await f.call(`/api/v1/approvals/${live}/decision`, supervisor, {
        body: { type: 'approve', expectedVersion: l.version, actionHash: l.actionHash },
      });
      assert.equal(ok.status, 200);
      await refusedAndUnchanged(
        live,
        { json: { type: 'approve', expectedVersion: l.version, actionHash: l.actionHash } },
        f.reviewers[1]!.token,
        { status: 409, code: 'already_resolved' },
      );
    });

    it('an edit that breaks the schema is 400 per field; one that raises the tier is a new request, never an authorization', async () => {
      const id = await f.propose(`bad-${backend.name}-6`, { orderId: 'ORD-6', amount: 100 });
      const req = await f.interlock.getRequestOrThrow(id);
      const g = { expectedVersion: req.version, actionHash: req.actionHash };
      const bad = await refusedAndUnchanged(
        id,
        { json: { type: 'edit', ...g, args: { orderId: '', amount: -5, extra: 1 } } },
        supervisor,
        { status: 400, code: 'invalid_input' },
      );
      const issues =
        (bad.error as { details?: { issues?: Array<{ path: string }> } }).details?.issues?.map((i) => i.path) ?? [];
      assert.ok(
        issues.includes('args.amount') && issues.includes('args.orderId'),
        `per-field issues: ${JSON.stringify(issues)}`,
      );
      await refusedAndUnchanged(
        id,
        { json: { type: 'edit', ...g, args: { orderId: 'ORD-6', amount: 500_000 } } },
        supervisor,
        { status: 403, code: 'policy_blocked' },
      );
      // Raising $100 (supervisor) to $900 (two finance reviewers): superseded by a new escalate request.
      const raised = await f.call<{ outcome: string; newRequestId: string }>(
        `/api/v1/approvals/${id}/decision`,
        supervisor,
        { body: { type: 'edit', ...g, args: { orderId: 'ORD-6', amount: 900 } } },
      );
      assert.equal(raised.status, 200);
      assert.equal(raised.body.outcome, 'superseded');
      const next = await f.interlock.getRequestOrThrow(raised.body.newRequestId);
      assert.deepEqual(
        [next.status, next.tier, next.role, next.approvalsRequired, next.approvalsReceived],
        ['pending', 'escalate', 'finance', 2, 0],
      );
      assert.equal((await f.interlock.getRequestOrThrow(id)).status, 'superseded');
      assert.deepEqual(
        await f.store.unsafeQuery('SELECT key FROM il_executions'),
        [],
        'nothing authorized, nothing ran',
      );
      // Editing the escalated request down to $100 cannot lower its tier: a fresh quorum of finance reviewers is still needed.
      const lowered = await f.call<{ outcome: string; newRequestId: string }>(
        `/api/v1/approvals/${next.id}/decision`,
        f.reviewers[4]!.token,
        {
          body: {
            type: 'edit',
            expectedVersion: next.version,
            actionHash: next.actionHash,
            args: { orderId: 'ORD-6', amount: 100 },
          },
        },
      );
      assert.equal(lowered.body.outcome, 'superseded');
      const third = await f.interlock.getRequestOrThrow(lowered.body.newRequestId);
      assert.deepEqual(
        [third.tier, third.role, third.approvalsRequired, third.approvalsReceived],
        ['escalate', 'finance', 2, 1],
      );
    });
  });
}
