/**
 * Suite 9's driver: every adapter's pair on SQLite, then on PostgreSQL, each built on fresh databases,
 * measured (bench/suites/oversight.ts) and closed before the next, so no pool or file of one pair
 * weighs on another's rounds.
 */
import type { Scratch } from '../lib/backends.ts';
import type { OversightBackend, OversightPair } from '../lib/oversight-agent.ts';
import type { LangGraphPeer } from '../peers/langgraph.ts';
import { aiSdkPair } from './oversight-ai-sdk.ts';
import { langChainPair } from './oversight-langchain.ts';
import { openAIAgentsPair } from './oversight-openai.ts';
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
    );
    for (const make of makers) {
      const pair = await make();
      try {
        out.push(...(await runOversightPair(pair, o, log)));
      } finally {
        await pair.own.close();
        await pair.interlock.close();
      }
    }
  }
  return out;
}
