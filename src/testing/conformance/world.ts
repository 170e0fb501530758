import type { PolicyConfig, Reviewer } from '../../core/index.ts';
import type { Interlock, ThreadRunner } from '../../engine/index.ts';

/**
 * One tool call a conformance model proposes: the call id it gives and what it asks for — a refund,
 * a lookup, or (`delegate`) a task for a sub-agent, in words the sub-agent's model plans from.
 */
export type ConformanceCall = { id: string } & (
  | { tool: 'issue_refund'; args: { orderId: string; amount: number } }
  | { tool: 'lookup_order'; args: { orderId: string } }
  | { tool: 'delegate'; args: { input: string } }
);

/** One side effect of the refund tool: what ran and under which idempotency key. */
export interface ConformanceEffect {
  args: { orderId: string; amount: number };
  key: string | undefined;
}

/**
 * What a driver builds its agent from. The model — the framework's own offline one — proposes, on a
 * user message, the calls `plan(text)` returns, all in one step; after tool results it answers with a
 * text. The tools call `refund` and `lookup`, which record every side effect.
 */
export interface ConformanceWorld {
  interlock: Interlock;
  /** The calls of the model's first step for a user message. */
  plan(text: string): ConformanceCall[];
  /**
   * The refund tool's body: record the effect and return what a payment API would. Drivers await it:
   * after {@link dieDuring} it never settles (the process died in the tool).
   */
  refund(args: { orderId: string; amount: number }, idempotencyKey: string | undefined): Promise<{ refunded: number }>;
  /**
   * Make the next refund hang forever, before or after its effect: with the world's store closed, the
   * process that ran it is as good as killed. The promise resolves once the tool is entered.
   */
  dieDuring(when: 'before-effect' | 'after-effect'): Promise<void>;
  /** Something the driver's process holds open (a connection) that its death must close. */
  onKill(close: () => Promise<void> | void): void;
  /** The process of this world dies: what drivers registered with {@link onKill} is closed. */
  kill(): Promise<void>;
  /** The lookup tool's body (a read, auto tier). */
  lookup(args: { orderId: string }): { orderId: string; total: number };
  /**
   * The model calls this before it answers after tool results: it throws once after {@link crashAfterTools}
   * armed it — a process that dies after the tools ran and before the run was saved.
   */
  afterTools(): void;
  /** Make the model's next answer after tool results fail. */
  crashAfterTools(): void;
  /**
   * Per backend, kept across worlds on one database: what the framework keeps in its own persistence
   * (a LangGraph checkpointer) so that a second world — another "process" — can resume a thread.
   */
  shared: Map<string, unknown>;
  /**
   * Run SQL on Interlock's own database, as someone with write access to it would (a driver's
   * {@link IntegrationDriver.forge} uses it where the framework keeps its state in Interlock's tables).
   */
  tamper(sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
}

/**
 * An integration under test: how to build its agent in a world, as the integration's documentation
 * tells a user to. The runner's `invoke` starts a thread with a user message, `resume` continues it
 * after decisions (ThreadRunner, the one runner contract).
 */
export interface IntegrationDriver {
  /** Shown in test names: `native`, `ai-sdk`, `openai-agents`, `langchain`… */
  name: string;
  create(world: ConformanceWorld): ThreadRunner | Promise<ThreadRunner>;
  /**
   * The same agent wired wrong in the way users of this framework most often do (the framework's own
   * run ignoring what Interlock hands it): a gated call must then fail closed with an error that says
   * how to wire it. Omit when the integration offers no such mistake to make.
   */
  miswired?(world: ConformanceWorld): ThreadRunner | Promise<ThreadRunner>;
  /**
   * Change the amount of a paused call in the framework's own saved copy of it (its history, its
   * run state), as someone with write access to that storage would. Default: in the messages and
   * checkpoints Interlock stores for the thread — where the native loop and the AI SDK and OpenAI
   * adapters keep theirs. An integration whose framework keeps its state elsewhere implements it.
   */
  alter?(world: ConformanceWorld, threadId: string, from: number, to: number): Promise<void>;
  /**
   * How a user retries a run that failed midway, as the integration documents it: `resume` the thread
   * from its last save (the integration saved the model's turn before its calls ran), or `invoke` it
   * again with the same message (nothing of the failed run was saved).
   */
  retry: 'resume' | 'invoke';
  /**
   * Tell the framework, in its own terms and without Interlock, that the thread's paused calls are
   * approved — a client sending an approval, a run state someone approved, a resume value sent straight
   * to the graph — and run it. Nothing may run: only a recorded decision approves. Omit when the
   * framework keeps no approval of its own (the suite then resumes with no decision recorded).
   */
  forge?(world: ConformanceWorld, runner: ThreadRunner, threadId: string): Promise<unknown>;
  /**
   * The agent with its refund tool behind a sub-agent (a handoff, an agent used as a tool), as the
   * framework builds one: the model's `delegate` call hands `{ input }` to a sub-agent whose model plans
   * from it. The sub-agent's gated call must be gated — or the integration refuses the tree loudly, at
   * construction or when the call is made, with an error that says how to wire it. Omit when the
   * framework has no sub-agents.
   */
  subAgent?(world: ConformanceWorld): ThreadRunner | Promise<ThreadRunner>;
}

/** Reviewers of the conformance policy's roles. */
export const REVIEWERS = {
  supervisor: { id: 'sam', roles: ['supervisor'] },
  manager: { id: 'max', roles: ['manager'] },
  director: { id: 'dana', roles: ['director'] },
  director2: { id: 'dora', roles: ['director'] },
} satisfies Record<string, Reviewer>;

/**
 * The policy every scenario runs under: reads and refunds up to $500 run alone; over $500 a supervisor
 * approves; over $1,000 a manager; over $20,000 two directors; over $100,000 nobody (block). A refund
 * of exactly $777 also places a planted check (a $77,777 refund) beside its request.
 */
export const CONFORMANCE_POLICY: PolicyConfig = {
  tools: {
    lookup_order: [{ id: 'read', tier: 'auto', reason: 'read-only' }],
    // Handing a task to a sub-agent is not itself an action: what the sub-agent does is gated.
    delegate: [{ id: 'delegate', tier: 'auto', reason: 'a task for a sub-agent' }],
    issue_refund: [
      { id: 'small', tier: 'auto', reason: 'refunds up to $500 run alone' },
      {
        id: 'large',
        tier: 'approve',
        role: 'supervisor',
        reason: 'refund over $500',
        when: ({ args }) => Number(args.amount) > 500,
      },
      {
        id: 'larger',
        tier: 'escalate',
        role: 'manager',
        reason: 'refund over $1,000',
        when: ({ args }) => Number(args.amount) > 1000 && Number(args.amount) <= 20_000,
      },
      {
        id: 'quorum',
        tier: 'escalate',
        role: 'director',
        approvals: 2,
        reason: 'refund over $20,000',
        when: ({ args }) => Number(args.amount) > 20_000,
      },
      {
        // Every refund of exactly $777 also places a planted check (a $77,777 refund) in the queue.
        id: 'spot-check',
        tier: 'escalate',
        role: 'supervisor',
        reason: 'refund under review',
        when: ({ args }) => Number(args.amount) === 777,
        plant: { rate: 1, template: ({ args }) => ({ args: { ...args, amount: 77_777 } }) },
      },
      {
        id: 'huge',
        tier: 'block',
        reason: 'refunds over $100,000 are not done by agents',
        when: ({ args }) => Number(args.amount) > 100_000,
      },
    ],
  },
};

let seq = 0;

/**
 * The conformance model's plan: `refund <order> <amount>` (or `lookup <order>`), several calls joined
 * by `;`, each with an optional `@id` for the call id it gives (default: a fresh random-looking id per
 * call, as providers give). `delegate <words>` is one call handing the rest of the message to a sub-agent.
 */
export function planCalls(text: string): ConformanceCall[] {
  const calls: ConformanceCall[] = [];
  const handed = /^delegate\s+(.+)$/s.exec(text.trim());
  if (handed)
    return [
      { id: `call_${(++seq).toString(36)}${Date.now().toString(36)}`, tool: 'delegate', args: { input: handed[1]! } },
    ];
  for (const part of text.split(';')) {
    const words = part.trim().split(/\s+/);
    const id =
      words.find((w) => w.startsWith('@'))?.slice(1) ?? `call_${(++seq).toString(36)}${Date.now().toString(36)}`;
    const [verb, orderId = 'A-1', amount = '0'] = words.filter((w) => !w.startsWith('@'));
    if (verb === 'refund') calls.push({ id, tool: 'issue_refund', args: { orderId, amount: Number(amount) } });
    else if (verb === 'lookup') calls.push({ id, tool: 'lookup_order', args: { orderId } });
  }
  return calls;
}

/** A world over one engine, recording the refund tool's effects in `effects`. */
export function conformanceWorld(
  interlock: Interlock,
  effects: ConformanceEffect[],
  shared: Map<string, unknown>,
  tamper: ConformanceWorld['tamper'] = () =>
    Promise.reject(new Error('conformance: this world has no database access')),
): ConformanceWorld {
  const crash = { armed: false };
  let dying: { when: 'before-effect' | 'after-effect'; entered: () => void } | undefined;
  const held: Array<() => Promise<void> | void> = [];
  return {
    interlock,
    plan: planCalls,
    async refund(args, key) {
      const d = dying;
      dying = undefined;
      if (d?.when === 'before-effect') {
        d.entered();
        return new Promise<never>(() => undefined);
      }
      effects.push({ args: { orderId: args.orderId, amount: args.amount }, key });
      if (d) {
        d.entered();
        return new Promise<never>(() => undefined);
      }
      return { refunded: args.amount };
    },
    onKill(close) {
      held.push(close);
    },
    async kill() {
      for (const close of held.splice(0)) await Promise.resolve(close()).catch(() => undefined);
    },
    dieDuring(when) {
      return new Promise<void>((entered) => {
        dying = { when, entered };
      });
    },
    lookup: ({ orderId }) => ({ orderId, total: 900 }),
    afterTools() {
      if (!crash.armed) return;
      crash.armed = false;
      throw new Error('conformance: the process died after the tools ran');
    },
    crashAfterTools() {
      crash.armed = true;
    },
    shared,
    tamper,
  };
}
