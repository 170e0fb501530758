import { newId, peopleOfRole, tierRank, type ApprovalRequest, type AuditEventInput, type Duration, type TimeoutDecision } from '../core/index.ts';
import { idempotencyKey, type ExecuteOptions, type GateVerdict, type PauseItem } from '../engine/index.ts';
import type { ThreadRow, ThreadStatus } from '../store/types.ts';
import type { HookCall } from './hooks.ts';
import { textOf, userMessage, type JsonValue, type Message, type ToolOutput } from './messages.ts';
import { generate } from './model.ts';
import { LOOP_STATE_VERSION, type LoopState, type PendingCall, type Wait, type WaitKind } from './state.ts';
import { ToolInterrupt, type InterruptRequest, type Tool } from './tool.ts';
import type { AgentOptions, AgentResult, Interrupt, StopReason } from './types.ts';
import { controlVerdict, notRunText, resolveWait, toAnswer } from './waits.ts';

/** A new question for a person, collected during a step and written in one pause. */
interface NewWait {
  wait: Wait;
  item: PauseItem;
}

/** The agent's fixed parts, prepared once by createAgent. */
export interface AgentRuntime {
  opts: AgentOptions;
  tools: Map<string, Tool>;
  toolDefs: Array<{ type: 'function'; name: string; description: string; inputSchema: Record<string, unknown> }>;
  identity: string;
  interruptRole: string;
  maxIterations: number;
}

/**
 * One run of the loop over one thread, from its latest checkpoint until it
 * ends, pauses, or stops. Holds the thread's lease for its duration.
 */
export class Run {
  private readonly rt: AgentRuntime;
  private readonly threadId: string;
  private state: LoopState;
  private readonly messages: Message[];
  /** Messages produced in this run and not yet checkpointed. */
  private unsaved: Message[] = [];
  private dirty = false;
  private readonly seen = new Map<string, ApprovalRequest>();
  private readonly audit: AuditEventInput[] = [];

  /** The thread row as the run's lease claim returned it: the first boundary's abort check needs no read. */
  private claimedRow: ThreadRow | undefined;

  /** Requests resolved by this invoke's decisions, as they committed: read once from here instead of the store. */
  private readonly known: Map<string, ApprovalRequest>;

  /** The run's lease on the thread (its owner name). */
  private readonly leaseOwner: string;

  constructor(rt: AgentRuntime, threadId: string, leaseOwner: string, state: LoopState, messages: Message[], claimedRow?: ThreadRow, known?: Map<string, ApprovalRequest>) {
    this.rt = rt;
    this.leaseOwner = leaseOwner;
    this.threadId = threadId;
    this.state = state;
    this.messages = messages;
    this.claimedRow = claimedRow;
    this.known = known ?? new Map<string, ApprovalRequest>();
    this.decided = [...this.known.keys()];
  }

  /** Requests this invoke's decisions resolved: their resume jobs are moot once the run stops durably past them. */
  private decided: string[];

  /** The decided requests to settle with the next durable stop (once). */
  private settle(): string[] {
    return this.decided.splice(0);
  }

  private resolve(wait: Wait) {
    return resolveWait(this.il, wait, this.seen, this.known);
  }

  private get il() {
    return this.rt.opts.interlock;
  }

  /** The thread as this run writes it: every write is fenced by the run's lease. */
  private thread() {
    return { id: this.threadId, agent: this.rt.opts.name, agentVersion: this.rt.opts.version, leaseOwner: this.leaseOwner };
  }

  /** True while the thread waits on a person. */
  isWaiting(): boolean {
    return this.state.batch !== null || this.state.control !== null;
  }

  addUserInput(text: string): void {
    this.push(userMessage(text));
  }

  mergeApp(app: Record<string, unknown> | undefined): void {
    if (app && Object.keys(app).length) {
      this.state.appState = { ...this.state.appState, ...app };
      this.dirty = true;
    }
  }

  private push(m: Message): void {
    this.messages.push(m);
    this.unsaved.push(m);
    this.dirty = true;
  }

  /**
   * What happened so far, to make durable before a side effect (a crash after it
   * must not repeat a model call); it commits with the execution's claim.
   * Undefined when nothing changed since the last checkpoint.
   */
  private pendingCheckpoint(): ExecuteOptions['checkpoint'] {
    if (!this.dirty) return undefined;
    return { thread: this.thread(), checkpoint: this.checkpointInput(), status: 'running', audit: this.audit.splice(0) };
  }

  /** The pending checkpoint committed (with the claim): nothing is unsaved any more. */
  private saved(): void {
    this.unsaved = [];
    this.dirty = false;
  }

  private checkpointInput() {
    return { newMessages: this.unsaved, state: this.state as unknown as Record<string, unknown>, schemaVersion: LOOP_STATE_VERSION };
  }

  /** Run until the thread ends, pauses or stops. */
  async loop(): Promise<AgentResult> {
    for (;;) {
      const thread = this.claimedRow ?? (await this.il.threads.getThread(this.threadId));
      this.claimedRow = undefined;
      if (thread?.abortRequested) return this.finish('aborted', 'aborted');

      if (this.state.control) {
        const step = await this.resolveControl();
        if (step === 'wait') return this.pauseWith([]);
        if (step === 'abort') return this.finish('aborted', 'aborted');
      }

      if (this.state.batch) {
        const fresh: NewWait[] = [];
        const waiting = await this.processBatch(fresh);
        if (waiting === 'busy') return this.finish('busy', 'running');
        if (fresh.length > 0 || waiting) return this.pauseWith(fresh);
        this.push({
          role: 'tool',
          content: this.state.batch.calls.map((c) => ({ type: 'tool-result' as const, toolCallId: c.toolCallId, toolName: c.toolName, output: c.output! })),
        });
        this.state.batch = null;
        continue;
      }

      // Nothing new to answer (a resume of a finished turn): stop without calling the model.
      const last = this.messages[this.messages.length - 1];
      if (!last || last.role === 'assistant') return this.finish('end_turn', 'completed');
      if (this.state.iterations >= this.rt.maxIterations) return this.finish('max_iterations', 'completed');
      const budgetWait = this.checkBudget();
      if (budgetWait) {
        this.state.control = budgetWait.wait;
        return this.pauseWith([budgetWait]);
      }

      const turn = await generate(this.rt.opts.model, {
        prompt: [{ role: 'system', content: this.state.system }, ...this.messages],
        tools: this.rt.toolDefs,
        toolChoice: { type: 'auto' },
      });
      this.state.iterations++;
      this.state.usage.inputTokens += turn.usage.inputTokens;
      this.state.usage.outputTokens += turn.usage.outputTokens;
      const per = this.rt.opts.budget?.costPerToken;
      if (per) this.state.usage.cost += turn.usage.inputTokens * per.input + turn.usage.outputTokens * per.output;
      this.push(turn.message);
      if (turn.toolCalls.length === 0) return this.finish('end_turn', 'completed');

      const calls: PendingCall[] = turn.toolCalls.map((c) => ({
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        args: c.input !== null && typeof c.input === 'object' && !Array.isArray(c.input) ? (c.input as Record<string, unknown>) : {},
        status: 'todo',
        answers: [],
      }));
      const checks: Array<'confidence' | 'hook'> = [];
      const conf = this.rt.opts.confidence;
      if (conf && (await conf.score(turn)) < conf.threshold) checks.push('confidence');
      if (this.rt.opts.hooks?.beforeToolBatch && calls.length > 1) checks.push('hook');
      this.state.batch = { calls, ...(checks.length ? { checks } : {}) };
    }
  }

  /** The pause: new requests, checkpoint and audit in one transaction; or only a checkpoint if nothing new. */
  private async pauseWith(fresh: NewWait[]): Promise<AgentResult> {
    if (fresh.length > 0) {
      const { requests } = await this.il.pause({
        thread: this.thread(),
        checkpoint: this.checkpointInput(),
        items: fresh.map((f) => f.item),
        proposer: this.rt.identity,
        releaseLease: true,
        settleResumeJobs: this.settle(),
        audit: this.audit.splice(0),
      });
      for (const r of requests) this.seen.set(r.id, r);
      this.unsaved = [];
      this.dirty = false;
    } else {
      await this.il.checkpoint(this.thread(), this.dirty ? this.checkpointInput() : undefined, 'interrupted', this.audit.splice(0), { releaseLease: true, settleResumeJobs: this.settle() });
      this.unsaved = [];
      this.dirty = false;
    }
    return this.result('interrupt', 'interrupted');
  }

  private async finish(reason: StopReason, status: ThreadStatus): Promise<AgentResult> {
    if (reason === 'aborted') {
      this.audit.push({ type: 'aborted', actor: this.rt.identity, threadId: this.threadId, payload: { at: 'boundary' } });
      await this.cancelPending();
    }
    if (reason === 'busy') {
      // Not past the decided requests yet: their resume jobs must still run the thread later.
      await this.il.checkpoint(this.thread(), this.dirty ? this.checkpointInput() : undefined, 'running', this.audit.splice(0), { releaseLease: true });
    } else if (!this.dirty && this.audit.length === 0) {
      // A resume that found nothing to do writes nothing but the lease release.
      await this.il.checkpoint(this.thread(), undefined, status, [], { releaseLease: true, settleResumeJobs: this.settle() });
    } else {
      if (status === 'completed') this.audit.push({ type: 'thread_completed', actor: this.rt.identity, threadId: this.threadId, payload: { stopReason: reason } });
      await this.il.checkpoint(this.thread(), this.checkpointInput(), status, this.audit.splice(0), { releaseLease: true, settleResumeJobs: this.settle() });
    }
    this.unsaved = [];
    this.dirty = false;
    return this.result(reason, status);
  }

  private async cancelPending(): Promise<void> {
    // Every open request of the thread, not only this run's waits: an aborted thread resumes no more.
    await this.il.threads.cancelOpenRequests(this.threadId, this.rt.identity, 'the thread was aborted');
  }


  result(stopReason: StopReason, status: ThreadStatus): AgentResult {
    const interrupts: Interrupt[] = [];
    const add = (w: Wait | undefined | null, call?: PendingCall) => {
      if (!w) return;
      const r = this.seen.get(w.requestId);
      if (!r || r.status !== 'pending') return;
      interrupts.push({
        id: r.id,
        kind: w.kind,
        name: w.name,
        reason: r.reason,
        ...(call ? { toolCallId: call.toolCallId, args: r.args } : {}),
        tier: r.tier,
        role: r.role,
        approvalsRequired: r.approvalsRequired,
        expiresAt: r.expiresAt,
        message: userFacing(w.kind, r),
      });
    };
    if (stopReason === 'interrupt') {
      add(this.state.control);
      add(this.state.batch?.wait);
      for (const c of this.state.batch?.calls ?? []) if (c.status === 'waiting') add(c.wait, c);
    }
    const lastAssistant = [...this.messages].reverse().find((m) => m.role === 'assistant');
    return { threadId: this.threadId, stopReason, status, interrupts, messages: this.messages, text: textOf(lastAssistant), usage: { ...this.state.usage } };
  }

  /** Work through the batch; returns true if some call still waits, 'busy' if another process holds one. */
  private async processBatch(fresh: NewWait[]): Promise<boolean | 'busy'> {
    const batch = this.state.batch!;
    const b = batch;
    // Batch-level questions first: one decision covers every call of the batch.
    if (batch.wait) {
      const o = await this.resolve(batch.wait);
      if (o.state === 'pending') return true;
      this.dirty = true;
      batch.wait = undefined;
      if (o.state === 'approved') b.checks?.shift();
      else {
        for (const c of batch.calls) if (c.status !== 'done') this.done(c, { type: 'text', value: notRunText(o) });
        b.checks = [];
      }
    }
    while (b.checks && b.checks.length > 0) {
      const check = b.checks[0]!;
      const calls: HookCall[] = batch.calls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, args: c.args }));
      let ask: { name: string; reason: string; role?: string; timeout?: Duration; onTimeout?: TimeoutDecision } | undefined;
      if (check === 'confidence') {
        const conf = this.rt.opts.confidence!;
        ask = { name: 'low_confidence', reason: `The agent's confidence in this step is below ${conf.threshold}; review the planned tool calls.`, role: conf.role, ...(conf.timeout ? { timeout: conf.timeout } : {}), ...(conf.onTimeout ? { onTimeout: conf.onTimeout } : {}) };
      } else {
        const r = await this.rt.opts.hooks!.beforeToolBatch!(calls, { threadId: this.threadId, appState: this.state.appState });
        ask = r?.interrupt;
      }
      if (!ask) {
        b.checks.shift();
        continue;
      }
      const w = this.newWait(check === 'confidence' ? 'confidence' : 'batch', ask.name, { tool: `batch:${ask.name}`, args: { calls } }, { id: `interrupt:${ask.name}`, reason: ask.reason, role: ask.role ?? this.rt.interruptRole, ...(ask.timeout ? { timeout: ask.timeout } : {}), ...(ask.onTimeout ? { onTimeout: ask.onTimeout } : {}) });
      batch.wait = w.wait;
      fresh.push(w);
      return true;
    }

    let waiting = false;
    for (const call of batch.calls) {
      if (call.status === 'done') continue;
      if (call.status === 'waiting') {
        const next = await this.resolveCallWait(call);
        if (next === 'waiting') {
          waiting = true;
          continue;
        }
      }
      if (call.status !== 'todo') continue;
      const step = await this.runCall(call, fresh);
      if (step === 'busy') return 'busy';
      if (step === 'waiting') waiting = true;
    }
    return waiting;
  }

  private done(call: PendingCall, output: ToolOutput): void {
    call.status = 'done';
    call.output = output;
    call.wait = undefined;
    this.dirty = true;
  }

  /** Apply the outcome of a call's wait; returns 'waiting' if nobody decided yet. */
  private async resolveCallWait(call: PendingCall): Promise<'waiting' | 'todo' | 'done'> {
    const wait = call.wait!;
    const o = await this.resolve(wait);
    if (o.state === 'pending') return 'waiting';
    this.dirty = true;
    if (wait.kind === 'tool') {
      call.answers.push(toAnswer(o));
      call.status = 'todo';
      call.wait = undefined;
      return 'todo';
    }
    if (o.state !== 'approved') {
      this.done(call, { type: 'text', value: notRunText(o) });
      return 'done';
    }
    call.status = 'todo';
    call.wait = undefined;
    if (wait.kind === 'hook') {
      call.hookCleared = true;
      call.args = o.args;
    } else {
      // A trust grant was audited (`trusted`) by the decision that made it; the run only uses it.
      call.authorizedBy = o.request.id;
      call.args = o.args;
    }
    return 'todo';
  }

  /** Hooks, validation, gate, execution of one call. */
  private async runCall(call: PendingCall, fresh: NewWait[]): Promise<'done' | 'waiting' | 'busy'> {
    const tool = this.rt.tools.get(call.toolName);
    if (!tool) {
      this.done(call, { type: 'error-text', value: `Unknown tool "${call.toolName}". Use one of: ${[...this.rt.tools.keys()].join(', ')}.` });
      return 'done';
    }
    const hook = this.rt.opts.hooks?.beforeToolCall;
    if (hook && !call.hookCleared && !call.authorizedBy) {
      const r = await hook({ toolCallId: call.toolCallId, toolName: call.toolName, args: call.args }, { threadId: this.threadId, appState: this.state.appState });
      if (r && 'cancel' in r) {
        this.done(call, { type: 'text', value: r.cancel });
        return 'done';
      }
      if (r && 'interrupt' in r) {
        const i = r.interrupt;
        const w = this.newWait('hook', i.name, { tool: call.toolName, args: call.args, toolCallId: call.toolCallId, evidence: i.details }, { id: `hook:${i.name}`, reason: i.reason, role: i.role ?? this.rt.interruptRole, ...(i.timeout ? { timeout: i.timeout } : {}), ...(i.onTimeout ? { onTimeout: i.onTimeout } : {}) });
        this.wait(call, w, fresh);
        return 'waiting';
      }
      if (r && 'rewrite' in r) {
        this.audit.push({ type: 'edited', actor: `hook:${this.rt.opts.name}`, threadId: this.threadId, payload: { tool: call.toolName, originalArgs: call.args, args: r.rewrite, by: 'beforeToolCall' } });
        call.args = r.rewrite;
      }
      call.hookCleared = true;
      this.dirty = true;
    }
    const parsed = tool.schema.safeParse(call.args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(args)'}: ${i.message}`).join('; ');
      this.done(call, { type: 'error-text', value: `Invalid arguments for ${call.toolName}: ${issues}. Fix them and call again.` });
      return 'done';
    }
    const args = parsed.data;

    let key: string;
    let requestId: string | null = null;
    let why: Record<string, unknown>;
    let notifyRole: string | null = null;
    if (call.authorizedBy) {
      const req = this.seen.get(call.authorizedBy) ?? (await this.il.getRequestOrThrow(call.authorizedBy));
      requestId = req.id;
      key = idempotencyKey(req.id, req.actionHash);
      why = { tier: req.tier, ruleId: req.ruleId, authorizedBy: req.resolution?.by ?? null };
    } else {
      const verdict = await this.il.gate({ tool: call.toolName, args }, { threadId: this.threadId, proposer: this.rt.identity, app: this.state.appState });
      if (verdict.tier === 'block') {
        this.audit.push({ type: 'refused', actor: 'system:policy', threadId: this.threadId, payload: { tool: call.toolName, args, ruleId: verdict.ruleId, reason: verdict.reason } });
        this.done(call, { type: 'error-text', value: `Blocked by policy: ${verdict.reason}. Do not retry this action; tell the customer it cannot be done here.` });
        return 'done';
      }
      if (tierRank(verdict.tier) >= tierRank('approve')) {
        const w = this.newWaitFromVerdict(call, args, verdict, await this.toolEvidence(tool, args));
        this.wait(call, w, fresh);
        return 'waiting';
      }
      key = `${this.threadId}:${call.toolCallId}${call.answers.length ? `:a${call.answers.length}` : ''}`;
      why = { tier: verdict.tier, ruleId: verdict.ruleId, reason: verdict.reason, ...(verdict.trustedBy ? { trustedBy: verdict.trustedBy } : {}) };
      if (verdict.tier === 'notify') notifyRole = verdict.role;
    }

    const checkpoint = this.pendingCheckpoint();
    const answers = call.answers;
    let next = 0;
    try {
      const out = await this.il.executeOnce(
        { key, tool: call.toolName, args, threadId: this.threadId, requestId, auditType: requestId ? 'executed' : 'auto_executed', auditPayload: why, notifyRole },
        async ({ idempotencyKey: k, attempt }) => {
          // The first unanswered question pauses the call whatever the tool does with the throw:
          // a tool that catches it (a try/catch around its body) or returns a fallback still pauses,
          // and nothing it returned is recorded as the call's result.
          let asked: ToolInterrupt | undefined;
          const interrupt = (request: InterruptRequest) => {
            const a = answers[next++];
            if (a) return a;
            asked ??= new ToolInterrupt(request);
            throw asked;
          };
          let result: unknown;
          try {
            result = await tool.execute(args, { threadId: this.threadId, toolCallId: call.toolCallId, idempotencyKey: k, attempt, appState: this.state.appState, interrupt });
          } catch (err) {
            throw asked ?? err;
          }
          if (asked) throw asked;
          return result;
        },
        { abandonIf: (e) => e instanceof ToolInterrupt, ...(this.rt.opts.leaseMs ? { leaseMs: this.rt.opts.leaseMs } : {}), ...(checkpoint ? { checkpoint } : {}) },
      );
      if (checkpoint) this.saved();
      if (out.status === 'in_progress') return 'busy';
      this.state.usage.toolCalls++;
      this.done(call, out.status === 'succeeded' ? { type: 'json', value: toJson(out.result) } : { type: 'error-text', value: `The tool failed: ${out.error}` });
      return 'done';
    } catch (err) {
      // Any other error abandons this run (the caller gives the lease back); what it did not commit is redone.
      if (!(err instanceof ToolInterrupt)) throw err;
      // An interrupt is raised inside the tool, after the claim (and the checkpoint with it) committed.
      if (checkpoint) this.saved();
      const q = err.request;
      const w = this.newWait('tool', q.name, { tool: call.toolName, args: { question: q.reason, ...(q.details ?? {}) }, toolCallId: call.toolCallId, evidence: q.details }, { id: `tool:${q.name}`, reason: q.reason, role: q.role ?? this.rt.interruptRole, ...(q.timeout ? { timeout: q.timeout } : {}), ...(q.onTimeout ? { onTimeout: q.onTimeout } : {}) });
      this.wait(call, w, fresh);
      return 'waiting';
    }
  }

  private wait(call: PendingCall, w: NewWait, fresh: NewWait[]): void {
    call.status = 'waiting';
    call.wait = w.wait;
    this.dirty = true;
    fresh.push(w);
  }

  private evidence(extra?: Record<string, unknown>): Record<string, unknown> {
    const lastUser = [...this.messages].reverse().find((m) => m.role === 'user');
    const lastAssistant = [...this.messages].reverse().find((m) => m.role === 'assistant');
    return { customerMessage: textOf(lastUser), agentSaid: textOf(lastAssistant), ...(extra ?? {}) };
  }

  private newWaitFromVerdict(call: PendingCall, args: Record<string, unknown>, verdict: GateVerdict, extra?: Record<string, unknown>): NewWait {
    const requestId = newId<string>('apr');
    return {
      wait: { kind: 'approval', requestId, name: call.toolName, reason: verdict.reason },
      item: { requestId, call: { tool: call.toolName, args }, toolCallId: call.toolCallId, verdict, evidence: this.evidence(extra), app: this.state.appState },
    };
  }

  /** The tool's own evidence for a reviewer, if it gives any; a failure is shown, never fatal to the pause. */
  private async toolEvidence(tool: Tool, args: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    if (!tool.evidence) return undefined;
    try {
      return await tool.evidence(args, { threadId: this.threadId });
    } catch (err) {
      return { evidenceError: `could not read the tool's evidence: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  private newWait(
    kind: WaitKind,
    name: string,
    action: { tool: string; args: Record<string, unknown>; toolCallId?: string; evidence?: Record<string, unknown> | undefined },
    v: Parameters<typeof controlVerdict>[0],
  ): NewWait {
    const requestId = newId<string>('apr');
    return {
      wait: { kind, requestId, name, reason: v.reason },
      item: {
        requestId,
        call: { tool: action.tool, args: action.args },
        ...(action.toolCallId ? { toolCallId: action.toolCallId } : {}),
        verdict: controlVerdict(v),
        evidence: this.evidence(action.evidence),
        app: this.state.appState,
      },
    };
  }

  /** Budget: ask when spending reaches `askAt` of the (granted) budget. */
  private checkBudget(): NewWait | undefined {
    const b = this.rt.opts.budget;
    if (!b) return undefined;
    const scale = 1 + this.state.budgetGrants;
    const u = this.state.usage;
    const fractions = [
      b.maxToolCalls ? u.toolCalls / (b.maxToolCalls * scale) : 0,
      b.maxTokens ? (u.inputTokens + u.outputTokens) / (b.maxTokens * scale) : 0,
      b.maxCost ? u.cost / (b.maxCost * scale) : 0,
    ];
    const used = Math.max(...fractions);
    if (used < (b.askAt ?? 0.8)) return undefined;
    return this.newWait(
      'budget',
      'budget',
      { tool: 'loop:budget', args: { used: Math.round(used * 100) / 100, usage: { ...u }, limits: { maxToolCalls: b.maxToolCalls ?? null, maxTokens: b.maxTokens ?? null, maxCost: b.maxCost ?? null }, grants: this.state.budgetGrants } },
      { id: 'loop:budget', reason: `The thread has used ${Math.round(used * 100)}% of its budget. Approve to extend it, respond to narrow the scope (your message goes to the agent), reject to stop.`, role: b.role, ...(b.timeout ? { timeout: b.timeout } : {}), onTimeout: b.onTimeout ?? 'abort' },
    );
  }

  /** A budget question: extend, narrow (message to the model) or stop. */
  private async resolveControl(): Promise<'wait' | 'continue' | 'abort'> {
    const o = await this.resolve(this.state.control!);
    if (o.state === 'pending') return 'wait';
    this.state.control = null;
    this.dirty = true;
    if (o.state === 'approved') {
      this.state.budgetGrants++;
      return 'continue';
    }
    if (o.state === 'responded') {
      this.state.budgetGrants++;
      this.push(userMessage(`[Reviewer, on the budget] ${o.message}`));
      return 'continue';
    }
    return 'abort';
  }
}

function toJson(v: unknown): JsonValue {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as JsonValue);
}

function userFacing(kind: WaitKind, r: ApprovalRequest): string {
  // "a finance reviewer", "2 supervisors": a role is an identifier, the customer reads a person.
  const who = peopleOfRole(r.role, r.approvalsRequired);
  if (kind === 'approval' && r.tier === 'escalate') return `I've escalated this for a quick review by ${who}; I'll continue as soon as it's decided.`;
  if (kind === 'approval') return `This needs approval from ${who} before I can go ahead; I'll continue as soon as it's decided.`;
  if (kind === 'budget') return `I've paused to check with ${who} before doing more.`;
  return `I've asked ${who} to confirm; I'll continue once they answer.`;
}
