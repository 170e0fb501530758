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
  /** Of those, commits that synced the disk (Interlock's SQLite store: `store.stats.syncs`). */
  syncs?(): number;
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

/** What each of Interlock's adapters returns for a turn or a resume: how it ended and what it paused on. */
interface AdapterRun {
  stopReason: string;
  interrupts: ReadonlyArray<{ id: string }>;
}

/** An agent through one of Interlock's adapters: a turn on a thread, and the resume of a paused one. */
export interface AdapterAgent {
  invoke(input: string, o: { threadId: string }): Promise<AdapterRun>;
  resume(threadId: string): Promise<AdapterRun>;
}

/**
 * The Interlock side of a pair: `agent`, built with an adapter on `il` over `store`, answering the
 * suite's two operations the same way for every framework (an auto-tier turn that ends, and a gated turn
 * that pauses once, is approved as a reviewer would, and resumes to its end).
 */
export function interlockSide(o: {
  label: string;
  /** The framework's name in the errors: "AI SDK". */
  framework: string;
  il: Interlock;
  store: Store;
  agent: AdapterAgent;
  runs: () => number;
  /** After each run of the agent (Mastra's offline model forgets the prompts it kept). */
  afterRun?: () => void;
  /** What else to close besides the store. */
  close?: () => Promise<void>;
}): OversightAgent {
  const { agent, framework, il, store } = o;
  const ran = <T>(r: T): T => {
    o.afterRun?.();
    return r;
  };
  const ended = (r: AdapterRun, what: string) =>
    expect(r.stopReason === 'end_turn', `${framework} + Interlock ${what} ended ${r.stopReason}`);
  return {
    label: o.label,
    async auto(threadId, input) {
      ended(ran(await agent.invoke(input, { threadId })), `auto turn on ${threadId}`);
    },
    async cycle(threadId, input) {
      const paused = ran(await agent.invoke(input, { threadId }));
      expect(paused.interrupts.length === 1, `${framework} + Interlock gated turn on ${threadId} did not pause`);
      await approve(il, paused.interrupts[0]!.id);
      ended(ran(await agent.resume(threadId)), `resume on ${threadId}`);
    },
    runs: o.runs,
    commits: () => store.stats.transactions,
    ...(store.stats.syncs === undefined ? {} : { syncs: () => store.stats.syncs! }),
    async close() {
      await store.close();
      await o.close?.();
    },
  };
}

/**
 * `plan` (a test/support script of the calls a model makes for a prompt) with a call id of its own per
 * turn, from the order in the prompt, which is unique: a thread runs several turns, and a call id used
 * again would be taken for the earlier turn's call (and the AI SDK refuses a history with two).
 */
export function perTurnIds<C extends { id: string }>(plan: (text: string) => C[]): (text: string) => C[] {
  return (text) => plan(text).map((c) => ({ ...c, id: `${c.id}_${text.split(/\s+/)[1] ?? ''}` }));
}

/**
 * The maker of a framework's pair from its two sides, each built from the same arguments ending with the
 * backend (`pairOf('AI SDK', own, withInterlock)(scratch, 'sqlite')`), the framework's side first. Both
 * run with the same durability: the application's table and Interlock's store on the same database
 * and settings.
 */
export function pairOf<A extends unknown[]>(
  framework: OversightPair['framework'],
  own: (...args: [...A, OversightBackend]) => Promise<OversightAgent>,
  interlock: (...args: [...A, OversightBackend]) => Promise<OversightAgent>,
): (...args: [...A, OversightBackend]) => Promise<OversightPair> {
  return async (...args) => {
    const backend = args.at(-1) as OversightBackend;
    const durability = backend === 'sqlite' ? 'synchronous=FULL (WAL)' : 'server defaults';
    return { framework, backend, durability, own: await own(...args), interlock: await interlock(...args) };
  };
}
