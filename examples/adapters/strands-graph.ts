// The Strands docs' multi-agent interrupts through Interlock: a graph inspector → cleanup whose
// BeforeNodeCallEvent asks before cleanup runs, and a swarm that asks before its cleanup agent — the
// question a durable request an operator decides instead of input(). The graph pauses, its engine
// closes, an operator approves, a new engine resumes from Interlock's checkpoint and cleanup runs
// once; the swarm's question is rejected and its node is cancelled with the operator's message.
// Run: node examples/adapters/strands-graph.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, Model, type Message, type ModelStreamEvent } from '@strands-agents/sdk';
import { Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { createInterlock, openStore, type PolicyConfig } from '../../src/index.ts';
import { createStrandsGraph } from '../../src/strands.ts';

const policy: PolicyConfig = {
  tools: { cleanup: [{ id: 'cleanup', tier: 'approve', role: 'operator', reason: 'resources are deleted for good' }] },
};
const dir = mkdtempSync(join(tmpdir(), 'interlock-strands-graph-'));
const runs: Record<string, number> = {};

/**
 * Any model provider works here; this one runs offline and says `text`. In a swarm an agent ends its
 * turn through the SDK's structured output tool (the handoff schema; no handoff here).
 */
class OfflineModel extends Model<{ modelId?: string }> {
  readonly agent: string;
  readonly text: string;
  readonly swarm: boolean;
  constructor(agent: string, text: string, swarm = false) {
    super();
    this.agent = agent;
    this.text = text;
    this.swarm = swarm;
  }
  updateConfig(): void {}
  getConfig() {
    return { modelId: 'offline' };
  }
  async *stream(messages: Message[]): AsyncGenerator<ModelStreamEvent> {
    const afterTool = messages.at(-1)!.content.some((b) => b.type === 'toolResultBlock');
    if (!afterTool) runs[this.agent] = (runs[this.agent] ?? 0) + 1;
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    if (this.swarm && !afterTool) {
      const start = { type: 'toolUseStart' as const, name: 'strands_structured_output', toolUseId: 'handoff_1' };
      yield { type: 'modelContentBlockStartEvent', start };
      const input = JSON.stringify({ message: this.text });
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
      return;
    }
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: this.text } };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
  }
}

const agent = (name: string, text: string, swarm = false) =>
  new Agent({ id: name, name, printer: false, model: new OfflineModel(name, text, swarm) });
const ask = { cleanup: () => ({ resources: 'older than 5 days' }) };

/** What one process builds: its engine and the two orchestrators behind Interlock. */
async function processOf() {
  const store = await openStore(join(dir, 'interlock.db'));
  const interlock = createInterlock({ store, policy });
  const graph = createStrandsGraph({
    name: 'maintenance',
    interlock,
    orchestrator: (sessionManager) =>
      new Graph({
        nodes: [agent('inspector', 'Found 3 resources older than 5 days.'), agent('cleanup', 'Cleaned 3 resources.')],
        edges: [['inspector', 'cleanup']],
        sessionManager,
        maxSteps: 10,
      }),
    ask,
  });
  const swarm = createStrandsGraph({
    name: 'maintenance-swarm',
    interlock,
    orchestrator: (sessionManager) =>
      new Swarm({ nodes: [agent('cleanup', 'Cleaned 3 resources.', true)], sessionManager, maxSteps: 10 }),
    ask,
  });
  return { store, interlock, graph, swarm };
}
const operator = { id: 'olga', roles: ['operator'] };

const first = await processOf();
const paused = await first.graph.invoke('Inspect and clean up my resources', { threadId: 'thr_graph' });
console.log(`graph: ${paused.stopReason} - ${paused.result?.interrupts?.[0]?.id} - ${paused.interrupts[0]?.message}`);
const req = await first.interlock.getRequestOrThrow(paused.interrupts[0]!.id);
await first.store.close();

const second = await processOf();
await second.interlock.decide(
  req.id,
  { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash },
  operator,
);
const done = await second.graph.resume('thr_graph');
console.log(`graph resumed from the checkpoint by a new engine: ${done.stopReason} - ${done.text}`);
console.log(`graph runs: inspector ${runs.inspector}, cleanup ${runs.cleanup}`);

const asked = await second.swarm.invoke('Clean up my resources', { threadId: 'thr_swarm' });
const req2 = await second.interlock.getRequestOrThrow(asked.interrupts[0]!.id);
await second.interlock.decide(
  req2.id,
  { type: 'reject', expectedVersion: req2.version, actionHash: req2.actionHash, message: 'not this week' },
  operator,
);
const cancelled = await second.swarm.resume('thr_swarm');
console.log(
  `swarm: ${asked.stopReason} → ${cancelled.stopReason} (${cancelled.result?.status}); cleanup runs ${runs.cleanup}`,
);
await second.store.close();
if (runs.cleanup !== 1 || runs.inspector !== 1) process.exit(1);
