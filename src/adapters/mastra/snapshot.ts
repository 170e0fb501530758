import { ConfigError } from '../../core/index.ts';
import type { AnyMastraAgent } from './types.ts';

/**
 * The workflows a Mastra agent run keeps a snapshot of while it is suspended: its agentic loop
 * (what `approveToolCall` / `declineToolCall` load) and the loop's execution workflow.
 */
const WORKFLOWS = ['agentic-loop', 'executionWorkflow'] as const;

/** One saved workflow snapshot of a suspended Mastra run. */
export interface SavedSnapshot {
  workflowName: string;
  snapshot: unknown;
}

/** The workflow snapshots of Mastra's storage, as the adapter reads and writes them. */
interface WorkflowsStore {
  loadWorkflowSnapshot(o: { workflowName: string; runId: string }): Promise<unknown>;
  persistWorkflowSnapshot(o: { workflowName: string; runId: string; snapshot: never }): Promise<void>;
}

/** How to register the agent so its runs can pause: said when Mastra has no storage. */
export const STORAGE_HOW =
  'Register the agent on a Mastra instance with storage — new Mastra({ agents: { support }, storage: new InMemoryStore() }) — before createMastraAgent (see docs/adapters/mastra.md).';

/** Mastra's workflows store of the agent's Mastra instance, or a refusal that says how to register it. */
export async function workflowsOf(agent: AnyMastraAgent): Promise<WorkflowsStore> {
  const storage = agent.getMastraInstance()?.getStorage();
  const store = (await storage?.getStore('workflows')) as WorkflowsStore | undefined;
  if (!store) throw new ConfigError(`Mastra agent "${agent.id}" has no storage. ${STORAGE_HOW}`, { agent: agent.id });
  return store;
}

/** The suspended run's snapshots, read from Mastra's storage right after it suspended: saved in Interlock's checkpoint. */
export async function readSnapshots(agent: AnyMastraAgent, runId: string): Promise<SavedSnapshot[]> {
  const store = await workflowsOf(agent);
  const out: SavedSnapshot[] = [];
  for (const workflowName of WORKFLOWS) {
    const snapshot = await store.loadWorkflowSnapshot({ workflowName, runId });
    if (snapshot) out.push({ workflowName, snapshot: JSON.parse(JSON.stringify(snapshot)) as unknown });
  }
  if (!out.some((s) => s.workflowName === 'agentic-loop'))
    throw new ConfigError(`Mastra kept no snapshot of suspended run ${runId}; nothing was saved. ${STORAGE_HOW}`, {
      runId,
    });
  return out;
}

/**
 * Write Interlock's copy of the run's snapshots back into Mastra's storage before Mastra resumes it.
 * Interlock's checkpoint is the source of truth: whatever Mastra's storage holds for the run (nothing,
 * in a new process; a run someone resumed around Interlock; an older or altered copy) is replaced.
 */
export async function restoreSnapshots(agent: AnyMastraAgent, runId: string, saved: SavedSnapshot[]): Promise<void> {
  const store = await workflowsOf(agent);
  for (const s of saved)
    await store.persistWorkflowSnapshot({ workflowName: s.workflowName, runId, snapshot: s.snapshot as never });
}
