/**
 * Suite 9's driver: every adapter's pair on SQLite, then on PostgreSQL, each built on fresh databases,
 * measured (bench/suites/oversight.ts) and closed before the next, so no pool or file of one pair
 * weighs on another's rounds.
 */
import type { Scratch } from '../lib/backends.ts';
import type { OversightBackend, OversightPair } from '../lib/oversight-agent.ts';
import type { LangGraphPeer } from '../peers/langgraph.ts';
import { aiSdkPair } from './oversight-ai-sdk.ts';
import { claudePair } from './oversight-claude.ts';
import { langChainPair } from './oversight-langchain.ts';
import { mastraPair } from './oversight-mastra.ts';
import { openAIAgentsPair } from './oversight-openai.ts';
import { strandsPair } from './oversight-strands.ts';
import { runOversightPair, type OversightOptions, type OversightRun } from './oversight.ts';

/**
 * Runs the suite. `savers` says on which backends LangGraph's own checkpointer loads here: the
 * LangChain pair needs it on both sides (the framework's persistence, and the graph state an agent
 * with Interlock's middleware still keeps there).
 */
export async function runOversight(
  scratch: Scratch,
  lg: LangGraphPeer | undefined,
  savers: Record<OversightBackend, boolean>,
  o: OversightOptions,
  log: (line: string) => void,
): Promise<OversightRun[]> {
  const out: OversightRun[] = [];
  for (const backend of ['sqlite', 'postgres'] as const) {
    const makers: Array<() => Promise<OversightPair>> = [];
    if (lg && savers[backend]) makers.push(() => langChainPair(lg, scratch, backend));
    makers.push(
      () => aiSdkPair(scratch, backend),
      () => openAIAgentsPair(scratch, backend),
      () => strandsPair(scratch, backend),
      () => mastraPair(scratch, backend),
      () => claudePair(scratch, backend),
    );
    for (const make of makers) {
      const pair = await make();
      try {
        out.push(...(await runOversightPair(pair, optionsFor(pair, o), log)));
      } finally {
        await pair.own.close();
        await pair.interlock.close();
      }
    }
  }
  return out;
}

/**
 * The Claude Agent SDK runs its CLI as a process per query (~0.6 s of CPU each on both sides): on two
 * cores 16 in flight takes 10–20 s an operation and measures only the process starts, so that pair runs
 * at most 4 in flight.
 */
function optionsFor(pair: OversightPair, o: OversightOptions): OversightOptions {
  if (pair.framework !== 'Claude Agent SDK') return o;
  return { ...o, concurrencies: [...new Set(o.concurrencies.map((c) => Math.min(c, 4)))] };
}
