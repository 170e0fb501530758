import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { allBackends } from '../testing/backends.ts';
import { manualClock } from '../testing/clock.ts';
import { auditEvent, createInterlock } from '../engine/index.ts';
import type { ChainVerification } from '../core/index.ts';

const CLI = fileURLToPath(new URL('./main.ts', import.meta.url));

function run(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 99) : 0, out, err }),
    );
  });
}

for (const backend of allBackends()) {
  describe(`interlock audit verify on ${backend.name}: a clock stepped back`, () => {
    let env: Record<string, string>;
    let stepSeq = 0;

    before(async () => {
      const store = await backend.create();
      env = backend.env();
      const clock = manualClock();
      const il = createInterlock({ store, policy: { tools: {} }, now: clock.now, owner: 'p1' });
      // One thread's events share a chain: the times are compared along it.
      const added = (id: string) =>
        auditEvent('raw_viewed', `reviewer:${id}`, { surface: 'cli', what: 'thread messages' }, { threadId: 'thr_1' });
      await il.audit.record([added('rev_a')]);
      clock.advance(1000);
      await il.audit.record([added('rev_b')]);
      clock.set(clock.now() - 10 * 60_000); // an NTP correction on the writing host
      await il.audit.record([added('rev_c')]);
      stepSeq = (await store.listAudit({})).at(-1)!.seq;
    });
    after(() => backend.destroy());

    it('passes, and lists the event whose time went back as a finding (exit 0)', async () => {
      const r = await run(['audit', 'verify'], env);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^ok: 3 events/);
      assert.match(r.out, /note: 1 event\(s\) carry a time earlier than the event before them in their chain/);
      assert.match(r.out, new RegExp(`#${stepSeq} \\(evt_[^,]+, chain \\d+\\): .* is 600\\.0 s before`));
    });

    it('--json carries the finding', async () => {
      const r = await run(['audit', 'verify', '--json'], env);
      assert.equal(r.code, 0, r.err);
      const v = JSON.parse(r.out) as ChainVerification;
      assert.equal(v.ok, true);
      assert.equal(v.findings?.total, 1);
      assert.equal(v.findings?.first[0]?.kind, 'time_backwards');
      assert.equal(v.findings?.first[0]?.seq, stepSeq);
      assert.equal(v.findings?.first[0]?.backMs, 600_000);
    });
  });
}
