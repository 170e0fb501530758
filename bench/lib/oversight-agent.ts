/**
 * One agent of the suite "Cost of oversight, per adapter": a framework's agent with its own
 * persistence and its own approval, or the same agent with Interlock's adapter. Both answer the same
 * two operations, so the suite measures them side by side.
 */
import { createInterlock, type Interlock, type Store } from '../../src/index.ts';
import { refundPolicy } from '../../test/support/adapter-policy.ts';
import type { Scratch } from './backends.ts';

export type OversightBackend = 'sqlite' | 'postgres';

/** An agent under test. Every operation returns once its state is committed to the database. */
export interface OversightAgent {
  /** Who this is, e.g. "LangChain · humanInTheLoopMiddleware + SqliteSaver". */
  readonly label: string;
  /** A turn whose refund the policy lets run alone ($100): model → tool → model, no pause. */
  auto(threadId: string, input: string): Promise<void>;
  /** A turn whose refund waits for a person ($850): run to the pause, approve, resume to the end. */
  cycle(threadId: string, input: string): Promise<void>;
  /** How many times the refund tool ran (each auto turn and each approved cycle runs it once). */
  runs(): number;
  /**
   * Transactions committed so far by what this side adds to the framework (the app's table, or
   * Interlock's store: `store.stats`); absent where nothing is counted (LangGraph's checkpointers).
   */
  commits?(): number;
  close(): Promise<void>;
}

/** A framework's agent beside the same agent through Interlock's adapter, on one backend. */
export interface OversightPair {
  framework: 'LangChain' | 'AI SDK' | 'OpenAI Agents SDK' | 'Strands' | 'Mastra' | 'Claude Agent SDK';
  backend: OversightBackend;
  /** The durability both sides run with (the same on both). */
  durability: string;
  own: OversightAgent;
  interlock: OversightAgent;
}

/**
 * A framework's pair on `backend`, the framework's side built first: both sides run with the same
 * durability (the application's table and Interlock's store on the same database and settings).
 */
export async function pairOn(
  framework: OversightPair['framework'],
  backend: OversightBackend,
  own: () => Promise<OversightAgent>,
  interlock: () => Promise<OversightAgent>,
): Promise<OversightPair> {
  const durability = backend === 'sqlite' ? 'synchronous=FULL (WAL)' : 'server defaults';
  return { framework, backend, durability, own: await own(), interlock: await interlock() };
}

/** Model responses each offline model holds: more than a run at full scale asks for. */
export const MODEL_TURNS = 120_000;

/** The reviewer who approves every gated refund. */
const SAM = { id: 'sam', roles: ['supervisor'] };

/** An Interlock on a new store of `backend` with the adapters' shared order-support policy. */
export async function oversightInterlock(
  scratch: Scratch,
  backend: OversightBackend,
  name: string,
): Promise<{ il: Interlock; store: Store }> {
  const store =
    backend === 'sqlite'
      ? await scratch.sqliteStore('full', name)
      : (await scratch.postgresStore(name.replace(/\W/g, '_'), 16)).store;
  return { il: createInterlock({ store, policy: refundPolicy }), store };
}

/** The reviewer's approval of request `id`, as the reviewer UI or API sends it (its own transaction). */
export async function approve(il: Interlock, id: string): Promise<void> {
  const req = await il.getRequestOrThrow(id);
  await il.decide(req.id, { type: 'approve', expectedVersion: req.version, actionHash: req.actionHash }, SAM);
}

/** Throws with what happened when an operation did not end the way the workload requires. */
export function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`oversight bench: ${what}`);
}
