/**
 * The LangGraph.js peer: the same workload as an Interlock agent, as a
 * LangGraph StateGraph (`agent` node → `tools` node with `interrupt()` before
 * each gated call → `agent`), resumed with `new Command({ resume })`.
 *
 * The packages live in bench/node_modules (installed by bench/setup.ts), not in
 * the project's dependencies, so they are loaded with dynamic imports and typed
 * here by the little of their API the benchmark uses: the project type-checks
 * whether or not the benchmark's peers are installed.
 */
import { prose, refundResult, amountFor, type Mode } from '../lib/workload.ts';

/* The slice of the LangGraph / LangChain API the benchmark touches. */
interface LcMessage {
  content: unknown;
  tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  getType(): string;
}
interface MessagesState {
  messages: LcMessage[];
}
type Config = { configurable: { thread_id: string } };
interface CompiledGraph {
  invoke(input: unknown, config?: Config): Promise<MessagesState & { __interrupt__?: unknown[] }>;
  getState(config: Config): Promise<{ values: MessagesState }>;
}
interface GraphBuilder {
  addNode(name: string, fn: (s: MessagesState) => Promise<Partial<MessagesState>>): GraphBuilder;
  addEdge(from: string, to: string): GraphBuilder;
  addConditionalEdges(from: string, fn: (s: MessagesState) => string): GraphBuilder;
  compile(opts?: { checkpointer?: unknown }): CompiledGraph;
}
interface LangGraphModule {
  StateGraph: new (schema: unknown) => GraphBuilder;
  MessagesAnnotation: unknown;
  StateSchema: new (fields: Record<string, unknown>) => unknown;
  MessagesDeltaValue: unknown;
  START: string;
  END: string;
  MemorySaver: new () => Checkpointer;
  Command: new (args: { resume: unknown }) => unknown;
  interrupt(value: unknown): unknown;
}
interface MessagesModule {
  HumanMessage: new (content: string) => LcMessage;
  AIMessage: new (fields: {
    content: string;
    tool_calls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  }) => LcMessage;
  ToolMessage: new (fields: { content: string; tool_call_id: string; name: string }) => LcMessage;
}
/** A LangGraph checkpointer (MemorySaver, SqliteSaver, PostgresSaver). */
export interface Checkpointer {
  setup?(): unknown;
  end?(): Promise<void>;
}
interface SqliteDatabase {
  pragma(sql: string, opts?: { simple: boolean }): unknown;
  prepare(sql: string): { get(...args: unknown[]): unknown };
  close(): void;
}
interface SqliteModule {
  SqliteSaver: new (db: SqliteDatabase) => Checkpointer;
}
interface PostgresModule {
  PostgresSaver: new (
    pool: unknown,
    serde: undefined,
    opts: { schema: string },
  ) => Checkpointer & { setup(): Promise<void>; end(): Promise<void> };
}
interface PgModule {
  default: {
    Pool: new (opts: { connectionString: string; max: number }) => { on(event: 'error', fn: () => void): void };
  };
}

/** Import a peer package from bench/node_modules (a variable specifier keeps tsc from resolving it). */
async function peer<T>(name: string): Promise<T> {
  return (await import(name)) as T;
}

export interface LangGraphPeer {
  lg: LangGraphModule;
  msgs: MessagesModule;
  /** `undefined` checkpointer: no persistence at all (suite 2's baseline). */
  graph(
    mode: Mode,
    checkpointer: Checkpointer | undefined,
    opts?: { callsPerTurn?: number; delta?: boolean },
  ): LangGraphRig;
  memorySaver(): Checkpointer;
  /** SqliteSaver over better-sqlite3 at `path`, with the given `synchronous` setting (WAL, as SqliteSaver sets it). */
  sqliteSaver(
    path: string,
    synchronous: 'FULL' | 'NORMAL',
  ): Promise<{ saver: Checkpointer; db: SqliteDatabase; synchronous: string }>;
  /** PostgresSaver on its own pool of `max` connections (as many as Interlock's store gets). */
  postgresSaver(url: string, schema: string, max: number): Promise<Checkpointer & { end(): Promise<void> }>;
}

/** One compiled graph and the side effects its tools performed. */
export interface LangGraphRig {
  graph: CompiledGraph;
  effects: Map<string, number>;
  /** One turn up to its interrupt (gated) or to its end (auto). */
  turn(threadId: string, n: number): Promise<MessagesState & { __interrupt__?: unknown[] }>;
  /** Resume an interrupted turn with an approval. */
  resume(threadId: string): Promise<MessagesState & { __interrupt__?: unknown[] }>;
}

/** Load LangGraph.js; throws if bench/node_modules is missing (run bench/setup.ts). */
export async function loadLangGraph(): Promise<LangGraphPeer> {
  const lg = await peer<LangGraphModule>('@langchain/langgraph');
  const msgs = await peer<MessagesModule>('@langchain/core/messages');
  return {
    lg,
    msgs,
    graph: (mode, checkpointer, opts = {}) =>
      buildGraph(lg, msgs, mode, checkpointer, opts.callsPerTurn ?? 1, opts.delta ?? false),
    memorySaver: () => new lg.MemorySaver(),
    async sqliteSaver(path, synchronous) {
      const Database = (await peer<{ default: new (path: string) => SqliteDatabase }>('better-sqlite3')).default;
      const { SqliteSaver } = await peer<SqliteModule>('@langchain/langgraph-checkpoint-sqlite');
      const db = new Database(path);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${synchronous}`);
      const saver = new SqliteSaver(db);
      saver.setup?.();
      const level = Number(db.pragma('synchronous', { simple: true }));
      return { saver, db, synchronous: ['OFF', 'NORMAL', 'FULL', 'EXTRA'][level] ?? String(level) };
    },
    async postgresSaver(url, schema, max) {
      const { PostgresSaver } = await peer<PostgresModule>('@langchain/langgraph-checkpoint-postgres');
      const { Pool } = (await peer<PgModule>('pg')).default;
      const pool = new Pool({ connectionString: url, max });
      pool.on('error', () => undefined); // a dropped idle connection must not crash the run
      const saver = new PostgresSaver(pool, undefined, { schema });
      await saver.setup();
      return saver;
    },
  };
}

function buildGraph(
  lg: LangGraphModule,
  m: MessagesModule,
  mode: Mode,
  checkpointer: Checkpointer | undefined,
  callsPerTurn: number,
  delta: boolean,
): LangGraphRig {
  const effects = new Map<string, number>();
  let callSeq = 0;
  // The same scripted "model" as Interlock's: text + tool call(s) after a user message, a closing text after tool results.
  const agent = async (s: MessagesState): Promise<Partial<MessagesState>> => {
    const last = s.messages[s.messages.length - 1];
    const turn = s.messages.filter((x) => x.getType() === 'human').length;
    if (last?.getType() === 'human') {
      return {
        messages: [
          new m.AIMessage({
            content: prose(`assistant-${turn}`, 440),
            tool_calls: Array.from({ length: callsPerTurn }, (_, i) => ({
              id: `call_${++callSeq}`,
              name: 'issue_refund',
              args: { orderId: `ORD-${turn}-${i}`, amount: amountFor(mode) },
            })),
          }),
        ],
      };
    }
    return { messages: [new m.AIMessage({ content: prose(`assistant-final-${turn}`) })] };
  };
  const tools = async (s: MessagesState): Promise<Partial<MessagesState>> => {
    const last = s.messages[s.messages.length - 1]!;
    const out: LcMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      // The gate: a refund over the threshold waits for a person (one interrupt per gated call).
      if (Number(call.args.amount) > 500) {
        const answer = lg.interrupt({
          tool: call.name,
          args: call.args,
          reason: 'refund over $500',
          role: 'supervisor',
        }) as { type: string };
        if (answer.type !== 'approve') {
          out.push(
            new m.ToolMessage({ content: 'A reviewer rejected this action.', tool_call_id: call.id!, name: call.name }),
          );
          continue;
        }
      }
      const key = `${call.id}`;
      effects.set(key, (effects.get(key) ?? 0) + 1);
      out.push(
        new m.ToolMessage({
          content: JSON.stringify(refundResult(String(call.args.orderId), Number(call.args.amount), key)),
          tool_call_id: call.id!,
          name: call.name,
        }),
      );
    }
    return { messages: out };
  };
  const schema = delta ? new lg.StateSchema({ messages: lg.MessagesDeltaValue }) : lg.MessagesAnnotation;
  const graph = new lg.StateGraph(schema)
    .addNode('agent', agent)
    .addNode('tools', tools)
    .addEdge(lg.START, 'agent')
    .addConditionalEdges('agent', (s) =>
      (s.messages[s.messages.length - 1]?.tool_calls?.length ?? 0) > 0 ? 'tools' : lg.END,
    )
    .addEdge('tools', 'agent')
    .compile(checkpointer ? { checkpointer } : {});
  const config = (threadId: string): Config => ({ configurable: { thread_id: threadId } });
  return {
    graph,
    effects,
    turn: (threadId, n) => graph.invoke({ messages: [new m.HumanMessage(prose(`user-${n}`))] }, config(threadId)),
    resume: (threadId) => graph.invoke(new lg.Command({ resume: { type: 'approve' } }), config(threadId)),
  };
}
