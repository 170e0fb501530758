import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allBackends } from '../testing/backends.ts';
import { fetchJson } from '../testing/http.ts';
import { createApp } from './app.ts';
import { serve } from './serve.ts';
import { guard, startServerFixture, type ServerFixture } from '../../test/support/server-fixture.ts';
import type { ThreadsAdapter } from './types.ts';

type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

/** The value of one sample in Prometheus exposition text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (want.every((w) => line.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

for (const backend of allBackends()) {
  describe(`operations API on ${backend.name}`, () => {
    let f: ServerFixture;
    before(async () => {
      f = await startServerFixture(backend);
    });
    after(async () => {
      await f.close();
    });

    it('/healthz and /readyz answer without a token', async () => {
      const h = await f.call<{ status: string }>('/healthz', null);
      assert.equal(h.status, 200);
      assert.equal(h.body.status, 'ok');
      const r = await f.call<{ status: string; store: string }>('/readyz', null);
      assert.equal(r.status, 200);
      const { clock, ...rest } = r.body as { clock?: { skewed: boolean } };
      assert.deepEqual(rest, { status: 'ready', store: backend.name });
      // PostgreSQL reports this process's clock against the database's; SQLite how far the host's clock
      // has stepped since the process started.
      assert.equal(clock?.skewed, false);
    });

    it('/readyz is 503 not_ready when the store does not answer', async () => {
      // The same engine over a store whose database has gone away.
      const app = createApp({
        interlock: {
          ...f.interlock,
          audit: { ...f.interlock.audit, getAuditHeads: () => Promise.reject(new Error('connection refused')) },
        },
        logger: { error: () => undefined },
      });
      const server = await serve({ app, port: 0 });
      try {
        const r = await fetchJson<ErrorBody>(`${server.url}/readyz`);
        assert.equal(r.status, 503);
        assert.equal(r.body.error.code, 'not_ready');
      } finally {
        await server.close();
      }
    });

    it('an API call whose database cannot be reached is 503 store_unavailable with Retry-After, not 500', async () => {
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      const restarting = Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      });
      for (const failure of [refused, restarting, new Error('Connection terminated unexpectedly')]) {
        const logged: unknown[] = [];
        const app = createApp({
          interlock: { ...f.interlock, listRequests: () => Promise.reject(failure) },
          logger: { error: (...a: unknown[]) => void logged.push(a) },
        });
        const server = await serve({ app, port: 0 });
        try {
          const r = await fetch(`${server.url}/api/v1/approvals`, {
            headers: { authorization: `Bearer ${f.tokens.olga}` },
          });
          const b = (await r.json()) as ErrorBody;
          assert.equal(r.status, 503, failure.message);
          assert.equal(b.error.code, 'store_unavailable');
          assert.equal(r.headers.get('retry-after'), '2');
          assert.doesNotMatch(JSON.stringify(b), /5432|ECONNREFUSED|administrator/);
          assert.equal(logged.length, 1);
        } finally {
          await server.close();
        }
      }
    });

    it('/metrics exposes counters after a decision and queue gauges from the store', async () => {
      const req = await f.pauseRefund(800);
      const quorum = await f.pauseRefund(2500);
      f.clock.advance(90_000);
      const d = await f.call(`/api/v1/approvals/${req.id}/decision`, 'alice', {
        body: { type: 'approve', ...guard(req) },
      });
      assert.equal(d.status, 200);
      await f.interlock.executeOnce(
        { key: `${req.id}:${req.actionHash}`, tool: req.tool, args: req.args, requestId: req.id },
        async () => 'ok',
      );
      const m = await fetch(`${f.url}/metrics`);
      assert.equal(m.status, 200);
      assert.match(m.headers.get('content-type') ?? '', /^text\/plain/);
      const text = await m.text();
      assert.equal(sample(text, 'interlock_interrupts_total', { tool: 'issue_refund', tier: 'approve' }), 1);
      assert.equal(sample(text, 'interlock_interrupts_total', { tool: 'issue_refund', tier: 'escalate' }), 1);
      assert.equal(sample(text, 'interlock_decisions_total', { type: 'approve' }), 1);
      assert.equal(sample(text, 'interlock_executions_total', { tool: 'issue_refund', status: 'succeeded' }), 1);
      assert.equal(sample(text, 'interlock_time_to_decision_seconds_count'), 1);
      assert.equal(sample(text, 'interlock_time_to_decision_seconds_sum'), 90);
      assert.equal(sample(text, 'interlock_queue_depth', { role: 'supervisor' }), 1);
      assert.equal(sample(text, 'interlock_oldest_pending_seconds', { role: 'supervisor' }), 90);
      assert.equal(sample(text, 'interlock_expirations_total'), 0);
      f.clock.advance(31 * 60_000);
      await f.interlock.expireDue();
      const after = await (await fetch(`${f.url}/metrics`)).text();
      assert.equal(sample(after, 'interlock_expirations_total'), 1);
      assert.equal(
        sample(after, 'interlock_queue_depth', { role: 'supervisor' }),
        undefined,
        'no pending request left: no series',
      );
      assert.ok(quorum.id);
      assert.equal(sample(after, 'process_cpu_user_seconds_total'), undefined, 'the global registry is not mixed in');
    });

    it("serves a thread's audit events to operators and its reviewers", async () => {
      const req = await f.pauseRefund(800);
      await f.call(`/api/v1/approvals/${req.id}/decision`, 'alice', { body: { type: 'approve', ...guard(req) } });
      const olga = await f.call<{
        threadId: string;
        events: Array<{ type: string; at: string; hash: string }>;
        nextAfterSeq: number | null;
      }>(`/api/v1/threads/${req.threadId}/audit`, 'olga');
      assert.equal(olga.status, 200);
      assert.deepEqual(
        olga.body.events.map((e) => e.type),
        ['interrupted', 'approved'],
      );
      assert.match(olga.body.events[0]!.at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(olga.body.nextAfterSeq, null);
      const page = await f.call<{ events: unknown[]; nextAfterSeq: number | null }>(
        `/api/v1/threads/${req.threadId}/audit?limit=1`,
        'olga',
      );
      assert.equal(page.body.events.length, 1);
      assert.ok(page.body.nextAfterSeq);
      const rest = await f.call<{ events: Array<{ type: string }> }>(
        `/api/v1/threads/${req.threadId}/audit?afterSeq=${page.body.nextAfterSeq}`,
        'olga',
      );
      assert.deepEqual(
        rest.body.events.map((e) => e.type),
        ['approved'],
      );
      assert.equal(
        (await f.call(`/api/v1/threads/${req.threadId}/audit`, 'bob')).status,
        200,
        'a supervisor reads a thread with a supervisor request',
      );
      const carol = await f.call<ErrorBody>(`/api/v1/threads/${req.threadId}/audit`, 'carol');
      assert.equal(carol.status, 403);
      const none = await f.call<ErrorBody>('/api/v1/threads/t-missing/audit', 'olga');
      assert.equal(none.status, 404);
      assert.equal(none.body.error.code, 'thread_not_found');
    });

    it('threads: start and abort answer 501 without an adapter; reading falls back to the store', async () => {
      const start = await f.call<ErrorBody>('/api/v1/threads', 'olga', { body: { agent: 'support', input: 'hello' } });
      assert.equal(start.status, 501);
      assert.equal(start.body.error.code, 'not_implemented');
      assert.match(start.body.error.message, /threads adapter/);
      assert.equal((await f.call<ErrorBody>('/api/v1/threads/t-1/abort', 'olga', { method: 'POST' })).status, 501);
      assert.equal(
        (await f.call<ErrorBody>('/api/v1/threads', 'alice', { body: { agent: 'support', input: 'x' } })).status,
        403,
        'only operators start threads',
      );
      const req = await f.pauseRefund(800);
      const t = await f.call<{ threadId: string; status: string }>(`/api/v1/threads/${req.threadId}`, 'alice');
      assert.equal(t.status, 200);
      assert.deepEqual([t.body.threadId, t.body.status], [req.threadId, 'interrupted']);
    });

    it('serves an OpenAPI 3.1 document of the routes', async () => {
      const r = await f.call<{
        openapi: string;
        paths: Record<string, Record<string, unknown>>;
        components: {
          schemas: {
            Decision: { required: string[]; properties: Record<string, unknown>; additionalProperties: boolean };
          };
        };
      }>('/openapi.json', null);
      assert.equal(r.status, 200);
      assert.equal(r.body.openapi, '3.1.0');
      for (const p of [
        '/api/v1/approvals',
        '/api/v1/approvals/{id}',
        '/api/v1/approvals/{id}/decision',
        '/api/v1/approvals/{id}/story',
        '/api/v1/threads/{id}/audit',
        '/api/v1/audit/verify',
        '/api/v1/events',
        '/healthz',
        '/readyz',
        '/metrics',
      ]) {
        assert.ok(r.body.paths[p], `documents ${p}`);
      }
      const decision = r.body.components.schemas.Decision;
      assert.deepEqual([...decision.required].sort(), ['actionHash', 'expectedVersion', 'type']);
      assert.equal(decision.additionalProperties, false);
      assert.ok(decision.properties.args);
    });

    it('a wrong method on a known path is 405 method_not_allowed with Allow; an unknown path stays 404', async () => {
      const req = await f.pauseRefund(600);
      const del = await fetch(`${f.url}/api/v1/approvals/${req.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${f.tokens.alice}` },
      });
      assert.equal(del.status, 405);
      assert.equal(del.headers.get('allow'), 'GET');
      const body = (await del.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'method_not_allowed');
      assert.match(body.error.message, /answers GET/);
      const getDecision = await fetch(`${f.url}/api/v1/approvals/${req.id}/decision`, {
        headers: { authorization: `Bearer ${f.tokens.alice}` },
      });
      assert.equal(getDecision.status, 405);
      assert.equal(getDecision.headers.get('allow'), 'POST');
      await getDecision.body?.cancel();
      const unknown = await fetch(`${f.url}/api/v1/nothing-here`, {
        headers: { authorization: `Bearer ${f.tokens.alice}` },
      });
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
      assert.equal((await f.interlock.getRequestOrThrow(req.id)).status, 'pending');
    });

    it('verifies the audit chain for operators only, and names the first broken event', async () => {
      const no = await f.call<ErrorBody>('/api/v1/audit/verify', 'alice');
      assert.equal(no.status, 403);
      const ok = await f.call<{ ok: boolean; events: number }>('/api/v1/audit/verify', 'olga');
      assert.equal(ok.status, 200);
      assert.equal(ok.body.ok, true);
      assert.ok(ok.body.events > 3);
      const victim = (await f.store.listAudit({ limit: 3 }))[2]!;
      await f.store.unsafeQuery(`UPDATE il_audit SET payload = '{"tampered":true}' WHERE seq = $1`, [victim.seq]);
      const bad = await f.call<{ ok: boolean; brokenAt: { seq: number } }>('/api/v1/audit/verify', 'olga');
      assert.equal(bad.status, 200);
      assert.equal(bad.body.ok, false);
      assert.equal(bad.body.brokenAt.seq, victim.seq);
    });
  });

  describe(`threads adapter and internal errors on ${backend.name}`, () => {
    let f: ServerFixture;
    const calls: string[] = [];
    const threads: ThreadsAdapter = {
      async start(agent, input, threadId) {
        calls.push(`start ${agent} ${JSON.stringify(input)} ${threadId ?? '-'}`);
        if (agent === 'explode') throw new Error('connection string postgres://secret@db leaked?');
        return { threadId: threadId ?? 't-new', status: 'running' };
      },
      async get(threadId) {
        return threadId === 't-new' ? { threadId, status: 'running', turns: 1 } : undefined;
      },
      async abort(threadId) {
        calls.push(`abort ${threadId}`);
        return { threadId, status: 'aborted' };
      },
    };
    before(async () => {
      f = await startServerFixture(backend, { threads });
    });
    after(() => f.close());

    it('starts, reads and aborts threads through the adapter (operators)', async () => {
      const s = await f.call<{ threadId: string; status: string }>('/api/v1/threads', 'olga', {
        body: { agent: 'support', input: { text: 'hi' } },
      });
      assert.equal(s.status, 202);
      assert.deepEqual(s.body, { threadId: 't-new', status: 'running' });
      const g = await f.call<{ turns: number }>('/api/v1/threads/t-new', 'olga');
      assert.equal(g.status, 200);
      assert.equal(g.body.turns, 1);
      assert.equal((await f.call('/api/v1/threads/t-unknown', 'olga')).status, 404);
      const a = await f.call<{ status: string }>('/api/v1/threads/t-new/abort', 'olga', { method: 'POST' });
      assert.equal(a.body.status, 'aborted');
      assert.equal((await f.call('/api/v1/threads/t-new/abort', 'alice', { method: 'POST' })).status, 403);
      const bad = await f.call<ErrorBody>('/api/v1/threads', 'olga', { body: { agent: '', input: 1, extra: 2 } });
      assert.equal(bad.status, 400);
      assert.deepEqual(calls, ['start support {"text":"hi"} -', 'abort t-new']);
    });

    it('500 internal without leaking the error, and logs it', async () => {
      const r = await f.call<ErrorBody>('/api/v1/threads', 'olga', { body: { agent: 'explode', input: null } });
      assert.equal(r.status, 500);
      assert.equal(r.body.error.code, 'internal');
      assert.doesNotMatch(JSON.stringify(r.body), /secret|postgres|Error|stack/);
      assert.equal(f.logged.length, 1);
      assert.equal(f.logged[0]!.meta.path, '/api/v1/threads');
    });
  });
}
