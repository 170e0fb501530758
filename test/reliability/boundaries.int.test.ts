import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterlock, type Interlock } from '../../src/index.ts';
import { allBackends } from '../../src/testing/backends.ts';
import type { Store } from '../../src/store/types.ts';

// A gated cycle killed at every commit boundary, one boundary per run: where the crash harness kills at
// random moments under load, this kills the process right after each of its transactions commits (and
// right after the payment call, before its outcome is recorded), then recovers as a deployment does (a
// user answering again, a worker), and checks the promises: the refund paid once per key, never without
// a recorded approval, no model call repeated, the thread ended, nothing left due, the audit chain whole.
// The boundaries are counted from a clean cycle, so a change to how many transactions a cycle commits
// (issue 33's "three commits per gated cycle") is covered at each of its new boundaries by itself.
const CHILD = fileURLToPath(new URL('./fixtures/boundary-child.ts', import.meta.url));

type Step = 'pause' | 'answer' | 'decide' | 'recover';
/** How a cycle is decided: in the agent's own process, or by a reviewer elsewhere with a worker resuming it. */
const FLOWS: Record<string, Step[]> = {
  'answered in-process': ['pause', 'answer'],
  'decided by a reviewer, resumed by a worker': ['pause', 'decide', 'recover'],
};

interface LogLine {
  step: Step;
  pid: number;
  commit?: number;
  at?: string;
  model?: 'propose' | 'answer';
  payment?: string;
  attempt?: number;
}

for (const backend of allBackends()) {
  describe(`a gated cycle killed at each commit boundary on ${backend.name}`, () => {
    let store: Store;
    let il: Interlock;
    let dir: string;
    let n = 0;
    before(async () => {
      store = await backend.create();
      il = createInterlock({ store, policy: { tools: {} } });
      dir = mkdtempSync(join(tmpdir(), 'interlock-boundaries-'));
    });
    after(async () => {
      await backend.destroy();
      rmSync(dir, { recursive: true, force: true });
    });

    const run = (step: Step, threadId: string, log: string, extra: Record<string, string> = {}) =>
      new Promise<{ status: number | null; signal: NodeJS.Signals | null; err: string }>((resolve, reject) => {
        const p = spawn(process.execPath, [CHILD, step, threadId, log], {
          env: { ...process.env, ...backend.env(), INTERLOCK_LEASE_MS: '400', ...extra },
          timeout: 60_000,
        });
        let err = '';
        p.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
        p.on('error', reject);
        p.on('close', (status, signal) => resolve({ status, signal, err }));
      });
    const read = (log: string): LogLine[] =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as LogLine)
        : [];

    for (const [flow, steps] of Object.entries(FLOWS)) {
      it(`${flow}: no loss, no double payment, no payment without an approval, no model call repeated`, async (t) => {
        // A clean cycle: the transactions each step commits are the boundaries to kill at.
        const clean = { thread: `clean-${backend.name}-${++n}`, log: join(dir, `clean-${n}.log`) };
        for (const step of steps) {
          const r = await run(step, clean.thread, clean.log);
          assert.equal(r.status, 0, `clean ${step} failed: ${r.err}`);
        }
        const cleanLog = read(clean.log);
        assert.deepEqual(await check(clean.thread, cleanLog, false), [], 'the clean cycle keeps every promise');
        const plan: { step: Step; env: Record<string, string>; label: string }[] = [];
        for (const step of steps) {
          const commits = cleanLog.filter((l) => l.step === step && l.commit !== undefined);
          for (const c of commits)
            plan.push({
              step,
              env: { KILL_AFTER_COMMIT: String(c.commit) },
              label: `${step}: after commit ${c.commit} (${c.at?.split(' ')[0]})`,
            });
          if (cleanLog.some((l) => l.step === step && l.payment))
            plan.push({
              step,
              env: { KILL_AFTER_EFFECT: '1' },
              label: `${step}: after the payment call, before its outcome`,
            });
        }
        assert.ok(plan.length >= 4, `a gated cycle has more boundaries than ${plan.length}`);

        const violations: string[] = [];
        for (const p of plan) {
          const threadId = `kill-${backend.name}-${++n}`;
          const log = join(dir, `kill-${n}.log`);
          for (const step of steps) {
            const killed = step === p.step;
            const r = await run(step, threadId, log, killed ? p.env : {});
            if (killed) {
              if (r.signal !== 'SIGKILL')
                violations.push(`${p.label}: the process was not killed there (${r.status}: ${r.err.slice(-300)})`);
              break;
            }
            if (r.status !== 0) violations.push(`${p.label}: ${step} before the kill failed: ${r.err.slice(-300)}`);
          }
          const recovered = await run('recover', threadId, log);
          if (recovered.status !== 0)
            violations.push(
              `${p.label}: recovery did not end the thread (${recovered.status}): ${recovered.err.slice(-300)}`,
            );
          for (const v of await check(threadId, read(log), p.env.KILL_AFTER_EFFECT === '1'))
            violations.push(`${p.label}: ${v}`);
        }
        t.diagnostic(`${plan.length} boundaries: ${plan.map((p) => p.label).join('; ')}`);
        assert.deepEqual(violations, []);
      });
    }

    /** The promises, for one thread; returns what broke. `afterEffect`: the kill fell between a payment and its record. */
    async function check(threadId: string, log: LogLine[], afterEffect: boolean): Promise<string[]> {
      const v: string[] = [];
      const thread = await store.getThread(threadId);
      if (thread?.status !== 'completed') v.push(`thread is ${thread?.status ?? 'missing'}, not completed`);
      const payments = log.filter((l) => l.payment);
      const keys = new Set(payments.map((l) => l.payment));
      if (keys.size !== 1) v.push(`${keys.size} payment keys, not 1`);
      // The one repeat allowed: the call reached the payment API and the process died before recording it;
      // the takeover calls again under the same key (the API deduplicates it).
      if (payments.length > (afterEffect ? 2 : 1)) v.push(`${payments.length} payment calls`);
      const models = log.filter((l) => l.model).map((l) => l.model);
      if (models.join(',') !== 'propose,answer') v.push(`model calls ${models.join(',')}, not propose,answer`);
      const [req] = (await il.listRequests({ threadId, limit: 10 })).items;
      const audit = req ? await store.listAudit({ requestId: req.id }) : [];
      const approved = audit.findIndex((e) => e.type === 'approved');
      const executed = audit.findIndex((e) => e.type === 'executed');
      if (approved < 0 || executed < approved)
        v.push(`audit ${audit.map((e) => e.type).join(',')}: no approval before the execution`);
      if (audit.filter((e) => e.type === 'executed').length !== 1) v.push('not exactly one executed event');
      if (req?.status !== 'executed') v.push(`request is ${req?.status}, not executed`);
      const due = (await store.listJobs({ threadId, kind: 'resume' })).filter(
        (j) => j.status === 'ready' || j.status === 'running',
      );
      if (due.length) v.push(`${due.length} jobs still due (${due.map((j) => j.kind).join(',')})`);
      const verified = await il.verifyAudit();
      if (!verified.ok) v.push(`audit verify: ${JSON.stringify(verified.brokenAt)}`);
      return v;
    }
  });
}
