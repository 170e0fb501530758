import { z } from 'zod';
import { ConfigError, InterlockUsageError, newId, NotFoundError, SchemaVersionError } from '../core/index.ts';
import { abortTree, childThreadsOf, internalsOf } from './delegation.ts';
import { GRAPH_STATE_VERSION, GraphRun, nodeTool } from './graph-run.ts';
import type { Graph, GraphInvokeOptions, GraphOptions, GraphResult, GraphState } from './graph-types.ts';

export type * from './graph-types.ts';

/**
 * Create a graph of agents and functions: nodes joined by edges (with conditions), the nodes of a
 * step running concurrently, a `beforeNode` hook that may ask a person about a node, and questions
 * from inside nodes. A pause anywhere (a hook, a node, a gated tool call of an agent node) pauses
 * the graph durably; finished nodes' results are kept, and the graph resumes where it stopped, in
 * this process or another. Register it with the worker like an agent (`agents: [graph]`).
 * @example
 * const g = createGraph({ name: 'maintenance', version: '1.0.0', interlock,
 *   nodes: { inspector: { agent: inspector }, cleanup: { run: (input) => cleanUp(input) } },
 *   edges: [{ from: 'inspector', to: 'cleanup' }], start: 'inspector',
 *   hooks: { beforeNode: [({ node }, { interrupt }) => {
 *     if (node === 'cleanup') interrupt({ name: 'confirm_cleanup', reason: 'Cleanup deletes files.' });
 *   }] } });
 */
export function createGraph(o: GraphOptions): Graph {
  validate(o);
  const il = o.interlock;
  const threads = il.threads;
  registerNodes(o);
  return {
    name: o.name,
    version: o.version,
    invoke: (input, opts) => run(o, input, opts),
    resume: (threadId) => run(o, null, { threadId }),
    async abort(threadId, by = 'operator') {
      if (!(await threads.getThread(threadId))) throw new NotFoundError('thread', threadId);
      await threads.abort(threadId, by);
      const { checkpoint } = await threads.loadLatest(threadId);
      for (const child of childThreadsOf(checkpoint?.state)) await abortTree(il, child, by);
    },
  };
}

/** A node's question can be edited: its input is checked against the node's schema, at the question's own tier. */
function registerNodes(o: GraphOptions): void {
  o.interlock.registerTools(
    Object.fromEntries(
      Object.entries(o.nodes).map(([name, def]) => [
        nodeTool(o.name, name),
        {
          schema: z.object({ input: 'run' in def && def.input ? def.input : z.any() }),
          description: def.description ?? `Step "${name}" of the ${o.name} graph`,
          ungated: true,
        },
      ]),
    ),
  );
}

/** One run of the graph's thread: the invoke's answers decided, the lease taken and held, the graph run to its next stop. */
async function run(o: GraphOptions, input: string | null, opts: GraphInvokeOptions = {}): Promise<GraphResult> {
  const il = o.interlock;
  const threadId = opts.threadId ?? newId<string>('thr');
  const owner = `${il.owner}:${newId<string>('run')}`;
  await decideResponses(o, threadId, opts);
  const leaseMs = o.leaseMs ?? il.leaseMs;
  const g = await start(o, threadId, owner, leaseMs);
  if (!(g instanceof GraphRun)) return g;
  const lease = il.threads.holdLease(threadId, owner, leaseMs);
  try {
    if (input !== null) {
      if (g.isWaiting())
        throw new InterlockUsageError(
          'thread_interrupted',
          `Thread ${threadId} is waiting on a person; answer its interrupts or wait for a decision before sending new input.`,
          { details: { threadId } },
        );
      g.start(input);
    }
    return await g.loop();
  } catch (err) {
    await lease.release();
    throw err;
  } finally {
    lease.stop();
  }
}

/** The invoke's in-process answers, each to an interrupt of this graph's tree, decided like any reviewer's. */
async function decideResponses(o: GraphOptions, threadId: string, opts: GraphInvokeOptions): Promise<void> {
  const il = o.interlock;
  for (const [id, resp] of Object.entries(opts.responses ?? {})) {
    if (!opts.reviewer)
      throw new ConfigError('invoke: "responses" need "reviewer" ({ id, roles }): every decision is recorded.');
    const req = await il.getRequestOrThrow(id);
    const inTree = (await il.threads.getThread(req.threadId))?.metadata.rootThreadId === threadId;
    if (req.threadId !== threadId && !inTree) throw new NotFoundError('interrupt', id);
    await il.decide(id, { ...resp, expectedVersion: req.version, actionHash: req.actionHash }, opts.reviewer);
  }
}

/** Take the thread's lease (creating the thread on first use) and read the graph's state: a run, or why none goes on. */
async function start(
  o: GraphOptions,
  threadId: string,
  owner: string,
  leaseMs: number,
): Promise<GraphRun | GraphResult> {
  const il = o.interlock;
  const threads = il.threads;
  const now = il.now();
  const { claimed, thread } = await threads.claimThread(
    {
      id: threadId,
      agent: o.name,
      agentVersion: o.version,
      status: 'running',
      messageCount: 0,
      abortRequested: false,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    },
    owner,
    now + leaseMs,
    now,
  );
  const release = () => threads.releaseThread(threadId, owner, il.now()).catch(() => undefined);
  if (thread.agent !== o.name) {
    if (claimed) await release();
    throw new InterlockUsageError('wrong_agent', `Thread ${threadId} belongs to "${thread.agent}", not "${o.name}".`, {
      details: { threadId },
    });
  }
  let g: GraphRun;
  try {
    const { checkpoint } = await threads.loadLatest(threadId);
    if (checkpoint && checkpoint.state.v !== GRAPH_STATE_VERSION)
      throw new SchemaVersionError('checkpoint', checkpoint.state.v, [GRAPH_STATE_VERSION]);
    g = new GraphRun(
      o,
      threadId,
      owner,
      checkpoint ? (structuredClone(checkpoint.state) as unknown as GraphState) : undefined,
    );
  } catch (err) {
    if (claimed) await release();
    throw err;
  }
  if (!claimed) return g.result('busy', thread.status);
  if (thread.status === 'aborted' || thread.status === 'failed') {
    await release();
    return g.result('aborted', thread.status);
  }
  return g;
}

/** Refuse a graph that cannot run: a clear message, before any thread exists. */
function validate(o: GraphOptions): void {
  if (!o?.interlock) throw new ConfigError('createGraph requires "interlock": the engine from createInterlock().');
  if (!o.name || !o.version) throw new ConfigError('createGraph requires "name" and "version" (recorded on threads).');
  const names = Object.keys(o.nodes ?? {});
  if (names.length === 0) throw new ConfigError(`createGraph(${o.name}): "nodes" is empty; give it at least one node.`);
  for (const [name, def] of Object.entries(o.nodes)) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw new ConfigError(
        `createGraph(${o.name}): node name ${JSON.stringify(name)} must be 1-64 letters, digits, "_" or "-".`,
      );
    if ('agent' in def) internalsOf(def.agent, `createGraph(${o.name}) node "${name}"`);
    else if (typeof def?.run !== 'function')
      throw new ConfigError(
        `createGraph(${o.name}): node "${name}" needs "agent" (from createAgent) or "run" (a function).`,
      );
  }
  const known = (n: string, where: string) => {
    if (!o.nodes[n])
      throw new ConfigError(
        `createGraph(${o.name}): ${where} names node "${n}", which is not one of ${names.join(', ')}.`,
      );
  };
  for (const s of Array.isArray(o.start) ? o.start : [o.start]) known(s, '"start"');
  for (const e of o.edges ?? []) {
    known(e.from, 'an edge');
    known(e.to, 'an edge');
  }
}
