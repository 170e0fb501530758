/**
 * `npm run bench:adapters [-- --cycles=N]`: what a gated cycle costs through each framework adapter —
 * the framework's run until it pauses (gate, checkpoint, request, audit, notification job in one
 * transaction), a reviewer's decision, and the resume that runs the approved tool once — on SQLite and
 * PostgreSQL, with the frameworks' own offline models (no network, no model latency). Prints a table;
 * not part of `npm test` (timings never are).
 */
import { performance } from 'node:perf_hooks';
import { generateText, stepCountIs } from 'ai';
import { RunState } from '@openai/agents-core';
import { createAgent } from 'langchain';
import { MemorySaver } from '@langchain/langgraph';
import { createInterlock, type Interlock } from '../src/index.ts';
import { allBackends } from '../src/testing/backends.ts';
import { createAiSdkAgent } from '../src/ai-sdk.ts';
import { createOpenAIAgentsAgent } from '../src/openai-agents.ts';
import { createLangChainRunner, interlockMiddleware } from '../src/langchain.ts';
import { createMastraAgent } from '../src/mastra.ts';
import { createStrandsAgent } from '../src/strands.ts';
import { refundPolicy } from '../test/support/adapter-policy.ts';
import * as aiModel from '../test/support/ai-sdk-model.ts';
import * as oaModel from '../test/support/openai-agents-model.ts';
import * as lcModel from '../test/support/langchain-model.ts';
import * as mastraSupport from '../test/support/mastra-support.ts';
import * as strandsSupport from '../test/support/strands-support.ts';
import { claudeSupport } from '../test/support/claude-support.ts';

const cycles = Number(process.argv.find((a) => a.startsWith('--cycles='))?.slice(9) ?? 100);
type Runner = {
  invoke(input: string, o: { threadId: string }): Promise<{ interrupts: readonly { id: string }[] }>;
  resume(threadId: string): Promise<{ stopReason: string }>;
};

async function runners(il: Interlock): Promise<Record<string, Runner>> {
  // Strands agents are built per run; the tool object is the app's one.
  const strandsRefund = strandsSupport.refundTool({ runs: [] });
  return {
    'AI SDK': createAiSdkAgent({
      name: 'support',
      interlock: il,
      tools: aiModel.supportTools({ runs: [] }),
      generate: (i) => generateText({ model: aiModel.supportModel(aiModel.plan), stopWhen: stepCountIs(5), ...i }),
    }),
    'OpenAI Agents SDK': createOpenAIAgentsAgent({
      interlock: il,
      agent: oaModel.supportAgent(oaModel.supportModel(4 * cycles + 10), { runs: [] }),
      RunState,
      run: (a, input) => oaModel.runner.run(a, input),
    }),
    LangChain: createLangChainRunner({
      name: 'support-lc',
      interlock: il,
      agent: createAgent({
        model: lcModel.supportModel(4 * cycles + 10),
        tools: lcModel.supportTools({ runs: [] }),
        checkpointer: new MemorySaver(),
        middleware: [interlockMiddleware({ interlock: il, name: 'support-lc' })],
      }),
    }),
    Mastra: createMastraAgent({
      name: 'support-mastra',
      interlock: il,
      agent: mastraSupport.supportAgent(mastraSupport.supportTools({ runs: [] })).agent,
    }),
    'Strands Agents': createStrandsAgent({
      name: 'support-strands',
      interlock: il,
      agent: () => strandsSupport.supportAgent(strandsSupport.supportModel(), [strandsRefund]),
    }),
    // Each cycle starts the SDK's Claude Code process twice (the turn that pauses, the resumed one).
    'Claude Agent SDK': (await claudeSupport(il, [])).agent,
  };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
console.log(`| backend | adapter | cycles | p50 ms | p95 ms | cycles/s |\n|---|---|---|---|---|---|`);
for (const backend of allBackends()) {
  const il = createInterlock({ store: await backend.create(), policy: refundPolicy });
  for (const [name, r] of Object.entries(await runners(il))) {
    const times: number[] = [];
    const t0 = performance.now();
    // A Claude Code process per turn costs about a second: fewer cycles for it (the table says how many).
    const n = name === 'Claude Agent SDK' ? Math.min(cycles, 10) : cycles;
    for (let i = 0; i < n; i++) {
      const t = `${name.replace(/\W/g, '')}-${i}`;
      const start = performance.now();
      const paused = await r.invoke(`refund ${t} 850`, { threadId: t });
      const req = await il.getRequestOrThrow(paused.interrupts[0]!.id);
      await il.decide(
        req.id,
        { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
        { id: 'sam', roles: ['supervisor'] },
      );
      const done = await r.resume(t);
      if (done.stopReason !== 'end_turn') throw new Error(`${name}: cycle ${i} ended ${done.stopReason}`);
      times.push(performance.now() - start);
    }
    const total = (performance.now() - t0) / 1000;
    console.log(
      `| ${backend.name} | ${name} | ${n} | ${pct(times, 0.5).toFixed(1)} | ${pct(times, 0.95).toFixed(1)} | ${(n / total).toFixed(n < 100 ? 1 : 0)} |`,
    );
  }
  await backend.destroy();
}
