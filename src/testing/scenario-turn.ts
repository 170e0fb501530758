import { isDeepStrictEqual } from 'node:util';
import type { ApprovalRequest } from '../core/index.ts';
import type { DecisionResult } from '../engine/index.ts';
import type { AgentResult, Interrupt, StopReason } from '../agent/types.ts';
import type { LoopState } from '../agent/state.ts';
import type { CheckpointRow, JobRow, Store } from '../store/types.ts';
import { fail, matchesPartial, show, textMatches } from './scenario-expect.ts';
import { ran, type ToolRun } from './scenario-recorder.ts';

/** What {@link Turn.expectInterrupted} may check besides the name. */
export interface InterruptMatch {
  kind?: Interrupt['kind'];
  role?: string;
  tier?: Interrupt['tier'];
  approvalsRequired?: number;
  /** These args (other keys of the proposed args are not checked). */
  args?: Record<string, unknown>;
}

/** What {@link Turn.expectToolRan} may check besides the name. */
export interface ToolRunMatch {
  /** Exactly this many runs (default: at least one). */
  times?: number;
  /** Only runs with these args (other keys are not checked). */
  args?: Record<string, unknown>;
}

/** What {@link Turn.expectCheckpoint} may check besides messages and agent version. */
export interface CheckpointMatch {
  /** A call of this tool is waiting on a person in the checkpoint's state. */
  pendingTool?: string;
  /** ...with these args. */
  pendingArgs?: Record<string, unknown>;
}

/** What {@link Turn.expectNotified} may check besides the role. */
export interface NotifiedMatch {
  /** The notification is about a call of this tool. */
  tool?: string;
  /** `true`: an after-the-fact notice (the `notify` tier); `false`: a request to decide. */
  fyi?: boolean;
}

/** What a turn knows of the scenario it belongs to. */
export interface TurnContext {
  store: Store;
  threadId: string;
  agentVersion: string;
  system: string;
  /** Tool runs of this turn. */
  runs: readonly ToolRun[];
  /** Model calls made during this turn. */
  modelCalls: number;
  /** Ids of the thread's notify jobs that existed before the turn. */
  jobsBefore: ReadonlySet<string>;
  decision?: DecisionResult;
  expired?: ApprovalRequest[];
}

/**
 * One step of a scenario: a user message, a decision and the resume it caused,
 * a timeout, or a plain resume. Holds the agent's result and what happened
 * during the step, and asserts on it. Synchronous expectations return the
 * turn, so they chain: `turn.expectToolRan('issue_refund').expectReply(/refund/)`;
 * the asynchronous ones (checkpoint, notifications) return what they found.
 */
export class Turn {
  /** The agent's result for this step. */
  readonly result: AgentResult;
  /** The decision recorded before this step's resume (turns from `scenario.decide`). */
  readonly decision: DecisionResult | undefined;
  /** The thread's requests the sweeper expired before this step's resume (turns from `scenario.timeout`). */
  readonly expired: readonly ApprovalRequest[];
  /** Tool runs during this step (interrupted runs included; see {@link ToolRun.outcome}). */
  readonly runs: readonly ToolRun[];
  /** Model calls during this step. */
  readonly modelCalls: number;
  private readonly ctx: TurnContext;

  constructor(result: AgentResult, ctx: TurnContext) {
    this.result = result;
    this.ctx = ctx;
    this.decision = ctx.decision;
    this.expired = ctx.expired ?? [];
    this.runs = ctx.runs;
    this.modelCalls = ctx.modelCalls;
  }

  /** Why the loop stopped (`interrupt` when it paused). */
  get stopReason(): StopReason {
    return this.result.stopReason;
  }

  /** The last assistant text. */
  get text(): string {
    return this.result.text;
  }

  /** The open interrupts the turn reported (empty unless it paused). */
  get interrupts(): Interrupt[] {
    return this.result.interrupts;
  }

  /** The open interrupt of this name (a tool name, or the name a hook, tool or loop check gave it); fails if there is none. */
  interrupt(name: string): Interrupt {
    const i = this.interrupts.find((x) => x.name === name);
    if (!i)
      fail(
        `No open interrupt named "${name}" after this turn (stopReason ${this.stopReason}).`,
        name,
        this.interrupts.map((x) => x.name),
      );
    return i;
  }

  /** The loop stopped for this reason. */
  expectStop(reason: StopReason): this {
    if (this.stopReason !== reason)
      fail(`The turn stopped for another reason (last reply: ${show(this.text)}).`, reason, this.stopReason);
    return this;
  }

  /**
   * The call was intercepted: the thread paused with an open interrupt of this
   * name (and, if given, this kind, role, tier, quorum, args). Returns it.
   * @example
   * const i = turn.expectInterrupted('issue_refund', { role: 'supervisor', args: { amount: 850 } });
   */
  expectInterrupted(name: string, match: InterruptMatch = {}): Interrupt {
    if (this.stopReason !== 'interrupt')
      fail(
        `Expected the thread to pause on "${name}", but the turn did not pause (last reply: ${show(this.text)}).`,
        'interrupt',
        this.stopReason,
      );
    const i = this.interrupts.find((x) => x.name === name);
    if (!i)
      fail(
        `Expected an open interrupt named "${name}".`,
        name,
        this.interrupts.map((x) => x.name),
      );
    const { args, ...fields } = match;
    for (const [k, v] of Object.entries(fields)) {
      const seen = i[k as keyof typeof fields];
      if (seen !== v) fail(`Interrupt "${name}" has another ${k}.`, v, seen);
    }
    if (!matchesPartial(i.args, args)) fail(`Interrupt "${name}" proposes other args.`, args, i.args);
    return i;
  }

  /** The turn did not pause. */
  expectNotInterrupted(): this {
    if (this.stopReason === 'interrupt')
      fail(
        'Expected the turn not to pause.',
        'no interrupt',
        this.interrupts.map((x) => `${x.kind}:${x.name}`),
      );
    return this;
  }

  /**
   * The thread resumed and moved on: it was not refused as busy or aborted,
   * and during this step the model was called or a tool ran.
   */
  expectResumed(): this {
    if (this.stopReason === 'busy' || this.stopReason === 'aborted')
      fail('Expected the thread to resume.', 'a running loop', this.stopReason);
    if (this.modelCalls === 0 && !this.runs.some(ran))
      fail(
        'Expected the thread to resume and do something, but it neither called the model nor ran a tool.',
        'a model call or a tool run',
        { stopReason: this.stopReason, interrupts: this.interrupts.map((x) => x.name) },
      );
    return this;
  }

  /** A tool ran during this turn (`times`: exactly that often; `args`: with these args). */
  expectToolRan(name: string, match: ToolRunMatch = {}): this {
    expectRuns(this.runs, name, match, 'during this turn');
    return this;
  }

  /** A tool did not run during this turn (an interrupted run does not count). */
  expectToolNotRun(name: string): this {
    expectRuns(this.runs, name, { times: 0 }, 'during this turn');
    return this;
  }

  /** The runs of a tool during this turn that went past every interrupt (see {@link ToolRun.outcome}). */
  runsOf(name: string): ToolRun[] {
    return this.runs.filter((r) => r.tool === name && ran(r));
  }

  /** The last assistant text contains `pattern` (a substring or a regular expression). */
  expectReply(pattern: string | RegExp): this {
    if (!textMatches(this.text, pattern)) fail('The agent replied otherwise.', pattern, this.text);
    return this;
  }

  /**
   * The thread's latest checkpoint holds the whole conversation of this turn,
   * stored (message for message as the agent returned it), the agent version
   * and system prompt, and, with `pendingTool`, that call waiting on a person.
   * Returns the checkpoint.
   * @example
   * await turn.expectCheckpoint({ pendingTool: 'issue_refund', pendingArgs: { amount: 850 } });
   */
  async expectCheckpoint(match: CheckpointMatch = {}): Promise<CheckpointRow> {
    const { store, threadId } = this.ctx;
    const cp = await store.getLatestCheckpoint(threadId);
    if (!cp) fail(`Thread ${threadId} has no checkpoint.`, 'a checkpoint', undefined);
    const messages = this.result.messages;
    if (cp.messageCount !== messages.length)
      fail(
        'The checkpoint does not cover the conversation of this turn.',
        `${messages.length} messages`,
        `${cp.messageCount} messages`,
      );
    const stored = await store.listMessages(threadId, cp.messageCount);
    if (!isDeepStrictEqual(stored, messages))
      fail('The stored messages differ from the conversation the agent returned.', messages, stored);
    const state = cp.state as unknown as LoopState;
    if (state.agentVersion !== this.ctx.agentVersion)
      fail('The checkpoint records another agent version.', this.ctx.agentVersion, state.agentVersion);
    if (state.system !== this.ctx.system)
      fail('The checkpoint records another system prompt.', this.ctx.system, state.system);
    if (match.pendingTool !== undefined) {
      const calls = state.batch?.calls ?? [];
      const pending = calls.find(
        (c) => c.toolName === match.pendingTool && c.status === 'waiting' && matchesPartial(c.args, match.pendingArgs),
      );
      if (!pending) {
        fail(
          `The checkpoint holds no waiting call of "${match.pendingTool}"${match.pendingArgs ? ` with ${show(match.pendingArgs)}` : ''}.`,
          { toolName: match.pendingTool, status: 'waiting', ...(match.pendingArgs ? { args: match.pendingArgs } : {}) },
          calls.map((c) => ({ toolName: c.toolName, status: c.status, args: c.args })),
        );
      }
    }
    return cp;
  }

  /**
   * A notification job for `role` was queued during this turn (a request to
   * decide, or with `fyi: true` a notice after a `notify`-tier call ran).
   * Returns the matching jobs.
   */
  async expectNotified(role: string, match: NotifiedMatch = {}): Promise<JobRow[]> {
    const { store, threadId, jobsBefore } = this.ctx;
    const jobs = (await store.listJobs({ threadId, kind: 'notify' })).filter((j) => !jobsBefore.has(j.id));
    const seen: Array<{ role: unknown; tool: string | undefined; fyi: boolean; job: JobRow }> = [];
    for (const job of jobs) {
      const tool =
        typeof job.payload.tool === 'string'
          ? job.payload.tool
          : job.requestId
            ? (await store.getRequest(job.requestId))?.tool
            : undefined;
      seen.push({ role: job.payload.role, tool, fyi: job.payload.fyi === true, job });
    }
    const hits = seen.filter(
      (s) =>
        s.role === role &&
        (match.tool === undefined || s.tool === match.tool) &&
        (match.fyi === undefined || s.fyi === match.fyi),
    );
    if (hits.length === 0) {
      fail(
        'No matching notification was queued during this turn.',
        { role, ...match },
        seen.map(({ job: _job, ...s }) => s),
      );
    }
    return hits.map((h) => h.job);
  }
}

/** Check the runs of one tool among `runs`; shared by turn- and scenario-level expectations. */
export function expectRuns(runs: readonly ToolRun[], name: string, match: ToolRunMatch, where: string): ToolRun[] {
  const all = runs.filter((r) => r.tool === name && ran(r));
  const hits = all.filter((r) => matchesPartial(r.args, match.args));
  const want = match.times;
  const ok = want === undefined ? hits.length > 0 : hits.length === want;
  if (!ok) {
    const what =
      want === 0
        ? `"${name}" ran ${where}, but should not have`
        : `"${name}" did not run ${want === undefined ? 'at all' : `${want} time(s)`} ${where}${match.args ? ` with ${show(match.args)}` : ''}`;
    fail(
      `${what}.`,
      { tool: name, times: want ?? 'at least 1', ...(match.args ? { args: match.args } : {}) },
      { times: hits.length, runs: all.map((r) => r.args), allToolsRun: runs.filter(ran).map((r) => r.tool) },
    );
  }
  return hits;
}
