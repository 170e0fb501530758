import {
  ConfigError,
  newId,
  type ApprovalRequest,
  type Decision,
  type Policy,
  type PolicyConfig,
  type Reviewer,
} from '../core/index.ts';
import { createInterlock, type DecisionResult, type Interlock } from '../engine/index.ts';
import { createAgent, type Agent } from '../agent/agent.ts';
import { agentTool } from '../agent/delegation.ts';
import type { LanguageModel } from '../agent/model.ts';
import type { Tool } from '../agent/tool.ts';
import type { AgentOptions, AgentResult, Interrupt, InterruptResponse } from '../agent/types.ts';
import type { Store } from '../store/types.ts';
import { manualClock, type ManualClock } from './clock.ts';
import { fail } from './scenario-expect.ts';
import { recordModel, recordTools, unansweredToolCalls, type ModelPrompt, type ToolRun } from './scenario-recorder.ts';
import { expectRuns, Turn, type ToolRunMatch } from './scenario-turn.ts';

/** Agent settings of a scenario: everything of {@link AgentOptions} but what the harness supplies. */
export type ScenarioAgentOptions = Omit<AgentOptions, 'model' | 'tools' | 'interlock'>;

/** Options of {@link scenario}. */
export interface ScenarioOptions {
  /** A migrated store (e.g. from `allBackends()`); several scenarios may share one. */
  store: Store;
  policy: PolicyConfig | Policy;
  /** The agent's tools; the harness wraps them to record every run. */
  tools: Tool[];
  /** Usually a `scriptedModel`; the harness records every prompt it receives. */
  model: LanguageModel;
  agent: ScenarioAgentOptions;
  /** The engine's clock, moved by {@link Scenario.timeout} (default: a new manual clock). */
  clock?: ManualClock;
  /** Default: a new id per scenario. */
  threadId?: string;
  /**
   * Sub-agents the agent calls as tools (`agentTool`), each with its own model and tools, recorded
   * into the same `runs` and `prompts` as the agent's (a turn's model calls count every level).
   * Decisions on their requests go through {@link Scenario.decide} like the agent's own.
   */
  subAgents?: Array<{
    agent: ScenarioAgentOptions;
    model: LanguageModel;
    tools: Tool[];
    /** The tool the parent calls (default name `ask_<agent name>`). */
    tool: { name?: string; description: string };
  }>;
}

/** A reviewer's decision, as the harness takes it: the version and action hash are read from the request. */
export type ScenarioDecision = InterruptResponse;

/** A scripted conversation with one agent on one thread. Made by {@link scenario}. */
export interface Scenario {
  readonly threadId: string;
  readonly agent: Agent;
  /** The engine the agent runs on (built over the store, the policy and the clock). */
  readonly interlock: Interlock;
  readonly clock: ManualClock;
  /** Every run of a tool's `execute` in this scenario, in order (interrupted runs included). */
  readonly runs: readonly ToolRun[];
  /** Every prompt the model received in this scenario, in order. */
  readonly prompts: readonly ModelPrompt[];
  /** Every step so far. */
  readonly turns: readonly Turn[];
  /** Send a user message and run the loop until the turn ends or pauses. */
  user(text: string, opts?: { app?: Record<string, unknown> }): Promise<Turn>;
  /**
   * Record a reviewer's decision through the engine (at the request's current
   * version and action hash, so the same checks, audit and ledger apply as for
   * a decision from the UI), then resume the thread as the resume worker would.
   * A decision that does not resolve the request (a first approval of a quorum,
   * an edit that became a new request) resumes to the same pause.
   * @example
   * const next = await s.decide(turn.interrupt('issue_refund'), { type: 'reject', message: 'outside the window' }, { id: 'sam', roles: ['supervisor'] });
   */
  decide(target: Interrupt | string, decision: ScenarioDecision, reviewer: Reviewer): Promise<Turn>;
  /** Resume the thread (what the resume worker does after a decision). */
  resume(): Promise<Turn>;
  /**
   * Let the thread's open requests time out: move the clock past the latest
   * expiry of its pending requests (or by `advanceMs`), run the sweeper
   * (`expireDue`), then resume. The turn lists what expired in `expired`.
   */
  timeout(opts?: { advanceMs?: number }): Promise<Turn>;
  /** A tool ran in the whole scenario (`times`: exactly that often; `args`: with these args). */
  expectToolRan(name: string, match?: ToolRunMatch): void;
  /** A tool never ran in the whole scenario (an interrupted run does not count). */
  expectToolNotRun(name: string): void;
  /** The model never saw a tool call without its result, in any prompt of the scenario. */
  expectEveryToolCallAnswered(): void;
}

/**
 * Build a scenario: an engine over `store` and `policy` on a manual clock, an
 * agent whose tools and model are recorded, and one thread to script.
 * @example
 * const s = await scenario({ store, policy: supportPolicy, tools: supportTools(pay), model: scriptedModel(supportScript),
 *   agent: { name: 'support', version: '1.0.0', system: 'You help customers.' } });
 * const turn = await s.user('I need a full refund for order ORD-999');
 * turn.expectInterrupted('issue_refund', { role: 'supervisor' });
 * await turn.expectCheckpoint({ pendingTool: 'issue_refund' });
 * await turn.expectNotified('supervisor');
 * const next = await s.decide(turn.interrupt('issue_refund'), { type: 'approve' }, { id: 'sam', roles: ['supervisor'] });
 * next.expectToolRan('issue_refund', { times: 1 }).expectReply(/refund/);
 */
export async function scenario(opts: ScenarioOptions): Promise<Scenario> {
  if (!opts?.store)
    throw new ConfigError('scenario() requires "store": a migrated store, e.g. await sqliteBackend().create().');
  if (!opts.model) throw new ConfigError('scenario() requires "model", e.g. scriptedModel([...]).');
  if (!opts.agent)
    throw new ConfigError('scenario() requires "agent": { name, version, system } and any other agent options.');
  const clock = opts.clock ?? manualClock();
  const interlock = createInterlock({ store: opts.store, policy: opts.policy, now: clock.now });
  const runs: ToolRun[] = [];
  const prompts: ModelPrompt[] = [];
  const turns: Turn[] = [];
  const agent = recordedAgent(opts, interlock, runs, prompts);
  const threadId = opts.threadId ?? newId<string>('thr');
  const s: ScenarioState = {
    store: opts.store,
    interlock,
    clock,
    agent,
    system: opts.agent.system,
    threadId,
    runs,
    prompts,
    turns,
  };
  const nothing = async () => ({});

  return {
    threadId,
    agent,
    interlock,
    clock,
    runs,
    prompts,
    turns,
    user: (text, o = {}) => step(s, nothing, () => agent.invoke(text, { threadId, ...(o.app ? { app: o.app } : {}) })),
    resume: () => step(s, nothing, () => agent.resume(threadId)),
    decide: (target, d, reviewer) => decideStep(s, target, d, reviewer),
    timeout: (o = {}) => timeoutStep(s, o),
    expectToolRan(name, match = {}) {
      expectRuns(runs, name, match, 'in this scenario');
    },
    expectToolNotRun(name) {
      expectRuns(runs, name, { times: 0 }, 'in this scenario');
    },
    expectEveryToolCallAnswered() {
      prompts.forEach((p, i) => {
        const missing = unansweredToolCalls(p);
        if (missing.length > 0)
          fail(
            `Model call ${i + 1} saw tool calls without results.`,
            'every tool call followed by its result',
            missing,
          );
      });
    },
  };
}

/** What a scenario's steps work on, and what they record (tool runs, model prompts, turns). */
interface ScenarioState {
  store: Store;
  interlock: Interlock;
  clock: ManualClock;
  agent: Agent;
  system: ScenarioAgentOptions['system'];
  threadId: string;
  runs: ToolRun[];
  prompts: ModelPrompt[];
  turns: Turn[];
}

/** The agent under test, and its sub-agents as tools, with every model prompt and tool run recorded. */
function recordedAgent(opts: ScenarioOptions, interlock: Interlock, runs: ToolRun[], prompts: ModelPrompt[]): Agent {
  const subTools = (opts.subAgents ?? []).map((sub) =>
    agentTool(
      createAgent({
        ...sub.agent,
        model: recordModel(sub.model, prompts),
        tools: recordTools(sub.tools, runs),
        interlock,
      }),
      sub.tool,
    ),
  );
  return createAgent({
    ...opts.agent,
    model: recordModel(opts.model, prompts),
    tools: [...recordTools(opts.tools, runs), ...subTools],
    interlock,
  });
}

/**
 * One turn: `before` (a decision, a sweep) then the agent run. What the turn
 * reports (tool runs, model calls, notifications) counts from before `before`,
 * so a notification queued by the decision itself belongs to the turn.
 */
async function step<E extends { decision?: DecisionResult; expired?: ApprovalRequest[] }>(
  s: ScenarioState,
  before: () => Promise<E>,
  run: () => Promise<AgentResult>,
): Promise<Turn> {
  const jobsBefore = new Set((await s.store.listJobs({ threadId: s.threadId, kind: 'notify' })).map((j) => j.id));
  const runsBefore = s.runs.length;
  const promptsBefore = s.prompts.length;
  const extra = await before();
  const result = await run();
  const turn = new Turn(result, {
    store: s.store,
    threadId: s.threadId,
    agentVersion: s.agent.version,
    system: s.system,
    runs: s.runs.slice(runsBefore),
    modelCalls: s.prompts.length - promptsBefore,
    jobsBefore,
    ...extra,
  });
  s.turns.push(turn);
  return turn;
}

/** {@link Scenario.decide}: the decision at the request's current version, then a resume. */
async function decideStep(
  s: ScenarioState,
  target: Interrupt | string,
  d: ScenarioDecision,
  reviewer: Reviewer,
): Promise<Turn> {
  const { interlock, threadId } = s;
  const id = typeof target === 'string' ? target : target.id;
  const req = await interlock.getRequestOrThrow(id);
  // A sub-agent's request sits on its child thread, which knows the scenario's thread as its root.
  const inTree = (await s.store.getThread(req.threadId))?.metadata.rootThreadId === threadId;
  if (req.threadId !== threadId && !inTree)
    throw new ConfigError(
      `scenario.decide: request ${id} belongs to thread ${req.threadId}, not to this scenario's thread ${threadId}.`,
    );
  const decision: Decision = { ...d, expectedVersion: req.version, actionHash: req.actionHash };
  return step(
    s,
    async () => ({ decision: await interlock.decide(id, decision, reviewer) }),
    () => s.agent.resume(threadId),
  );
}

/** {@link Scenario.timeout}: the clock past the pending requests' expiry, a sweep, then a resume. */
async function timeoutStep(s: ScenarioState, o: { advanceMs?: number }): Promise<Turn> {
  const { interlock, threadId, clock } = s;
  const { items } = await interlock.listRequests({ threadId, status: 'pending', limit: 500 });
  if (o.advanceMs === undefined && items.length === 0)
    fail('scenario.timeout(): the thread has no pending request to let expire.', 'a pending request', 'none');
  return step(
    s,
    async () => {
      if (o.advanceMs !== undefined) clock.advance(o.advanceMs);
      else clock.set(Math.max(clock.now(), ...items.map((r) => r.expiresAt + 1)));
      return { expired: (await interlock.expireDue()).filter((r) => r.threadId === threadId) };
    },
    () => s.agent.resume(threadId),
  );
}
