import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { z } from 'zod';
import { allBackends } from '../testing/backends.ts';
import { fetchJson } from '../testing/http.ts';
import { createInterlock } from '../engine/index.ts';
import { createReviewer } from '../server/auth.ts';
import { createAiSdkAgent, type AiSdkAgent } from '../adapters/ai-sdk/agent.ts';
import { refundPolicy } from '../../test/support/adapter-policy.ts';
import { plan, supportModel, supportTools, type RefundLog } from '../../test/support/ai-sdk-model.ts';
import { defineConfig } from './config.ts';
import { startService, type Service } from './service.ts';

const refundArgs = z.object({ orderId: z.string(), amount: z.number().positive() });

// An app runs an AI SDK agent and resumes its own threads; `interlock serve` on the same database does
// not build that agent, and learns the tool's schema from the config's `tools`.
for (const backend of allBackends()) {
  describe(`the service edits requests of an app's adapter agent with the config's tools, on ${backend.name}`, () => {
    let svc: Service;
    let app: AiSdkAgent;
    let token: string;
    const log: RefundLog = { runs: [] };

    before(async () => {
      const appStore = await backend.create();
      const env = backend.env();
      const model = supportModel(plan);
      app = createAiSdkAgent({
        name: 'app-support',
        interlock: createInterlock({ store: appStore, policy: refundPolicy }),
        tools: supportTools(log),
        generate: (i) => generateText({ model, stopWhen: stepCountIs(5), ...i }),
      });
      if (env.INTERLOCK_PG_SCHEMA) process.env.INTERLOCK_PG_SCHEMA = env.INTERLOCK_PG_SCHEMA;
      svc = await startService({
        config: defineConfig({ policy: refundPolicy, agents: () => [], tools: { issue_refund: refundArgs } }),
        databaseUrl: env.DATABASE_URL ?? `sqlite:${join(env.INTERLOCK_DATA_DIR!, 'interlock.db')}`,
        port: 0,
        worker: false,
        log: () => undefined,
      });
      token = (await createReviewer(svc.store, { name: 'Sam', roles: ['supervisor'] })).token;
    });
    after(async () => {
      await svc.close();
      delete process.env.INTERLOCK_PG_SCHEMA;
      await backend.destroy();
    });

    it('a reviewer edits over HTTP; the edit is checked against the schema, and the app runs it once', async () => {
      const t = `app-tools-${backend.name}`;
      const r = await app.invoke(`refund ${t} 850`, { threadId: t });
      const req = await svc.interlock.getRequestOrThrow(r.interrupts[0]!.id);
      const decide = (args: Record<string, unknown>) =>
        fetchJson<{ error?: { code: string } }>(`${svc.url}/api/v1/approvals/${req.id}/decision`, {
          method: 'POST',
          token,
          body: { type: 'edit', expectedVersion: req.version, actionHash: req.actionHash, args },
        });
      const bad = await decide({ orderId: t, amount: -5 });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error?.code, 'invalid_input');
      const ok = await decide({ orderId: t, amount: 600 });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal((await app.resume(t)).stopReason, 'end_turn');
      assert.deepEqual(
        log.runs.map((x) => x.args.amount),
        [600],
      );
    });
  });
}
