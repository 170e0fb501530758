import { actionHash, InterlockUsageError, redact, tierRank } from '../core/index.ts';
import { delegationOf, internalsOf } from './delegation.ts';
import type { Agent, Interrupt } from './types.ts';
import { auditEvent, blockedText, idempotencyKey } from '../engine/index.ts';
import type { ToolOutput } from './messages.ts';
import type { PendingCall } from './state.ts';
import { ToolInterrupt, type InterruptRequest, type Tool } from './tool.ts';
import { runTool, type CallRun } from './tool-run.ts';
import { notRunText, toAnswer } from './waits.ts';
import { RunBase } from './run-base.ts';
import { toJson, toolEvidence, type NewWait } from './new-waits.ts';

/**
 * One tool call of a run, from the model's proposal to its result: a decision that came in, the
 * `beforeToolCall` hook, argument validation, the policy gate, the idempotency key, and the
 * execution under the ledger, with a pause raised inside the tool. The loop itself (src/agent/run.ts)
 * steps through calls with it.
 */
export abstract class CallStep extends RunBase {
  protected done(call: PendingCall, output: ToolOutput): void {
    call.status = 'done';
    call.output = output;
    call.wait = undefined;
    this.dirty = true;
  }

  /** The interrupts of sub-agents this run found waiting, by the parent's call id (shown as the tree's). */
  protected readonly childInterrupts = new Map<string, Interrupt[]>();

  /**
   * A sub-agent call past the gate: start the child thread (or continue it), and take the child's
   * final answer as the call's result. A pause inside the child leaves the call waiting, and the
   * tree pauses with it; the child's questions are the tree's.
   */
  protected async runSubAgent(call: PendingCall, agent?: Agent): Promise<'done' | 'waiting' | 'busy'> {
    const sub = agent ?? this.subAgentOf(call);
    const name = sub.name;
    const path = [...this.path(), name];
    if (!call.child) {
      call.child = `${this.threadId}.${call.toolCallId}`;
      this.audit.push(
        auditEvent(
          'delegated',
          this.rt.identity,
          { kind: 'subagent', to: name, childThreadId: call.child, toolCallId: call.toolCallId, path },
          { threadId: this.threadId },
        ),
      );
      this.dirty = true;
      // Durable before the child runs: after a crash the parent continues this child, never asks its model again.
      await this.il.checkpoint(this.thread(), this.checkpointInput(), 'running', this.audit.splice(0));
      this.saved();
    }
    const child = await this.il.threads.getThread(call.child);
    const started = (child?.messageCount ?? 0) > 0;
    const r = await internalsOf(sub, 'a sub-agent call').runChild(
      started ? null : typeof call.args.input === 'string' ? call.args.input : JSON.stringify(call.args.input ?? ''),
      call.child,
      { rootThreadId: this.tree?.rootThreadId ?? this.threadId, parentThreadId: this.threadId, path },
    );
    if (r.stopReason === 'busy') return 'busy';
    if (r.stopReason === 'interrupt') {
      const first = r.interrupts[0];
      const before = call.wait?.requestId;
      call.status = 'waiting';
      call.wait = { kind: 'agent', requestId: first?.id ?? '', name, reason: first?.reason ?? '' };
      if (before !== call.wait.requestId) this.dirty = true;
      this.childInterrupts.set(call.toolCallId, r.interrupts);
      return 'waiting';
    }
    this.state.usage.toolCalls++;
    this.done(call, {
      type: 'text',
      value:
        r.stopReason === 'aborted'
          ? `The ${name} agent was stopped before it finished.`
          : r.text || `The ${name} agent finished without an answer.`,
    });
    return 'done';
  }

  /** The agent a started sub-agent call delegates to, looked up by the calling agent's tool. */
  private subAgentOf(call: PendingCall): Agent {
    for (const rt of [this.rt, this.home]) {
      const t = rt.tools.get(call.toolName);
      const d = t && delegationOf(t);
      if (d?.kind === 'subagent') return d.agent;
    }
    throw new InterlockUsageError(
      'unknown_agent',
      `Thread ${this.threadId} has a sub-agent call of "${call.toolName}", which this build's agent no longer has; deploy a build that has it to resume the thread.`,
      { details: { threadId: this.threadId, tool: call.toolName } },
    );
  }

  /** A handoff past the gate: the receiving agent speaks from the next turn (once this batch is answered). */
  private handOff(call: PendingCall, to: string): 'done' {
    if (to !== this.home.opts.name && !this.home.peer(to))
      throw new InterlockUsageError('unknown_agent', `Handoff to "${to}", which this agent cannot reach.`, {
        details: { threadId: this.threadId, to },
      });
    this.state.handoffTo = to;
    this.audit.push(
      auditEvent(
        'delegated',
        this.rt.identity,
        { kind: 'handoff', from: this.rt.opts.name, to, toolCallId: call.toolCallId, path: this.path() },
        { threadId: this.threadId },
      ),
    );
    this.done(call, { type: 'text', value: `Transferred to ${to}; ${to} continues the conversation.` });
    return 'done';
  }

  /** Apply the outcome of a call's wait; returns 'waiting' if nobody decided yet. */
  protected async resolveCallWait(call: PendingCall): Promise<'waiting' | 'todo' | 'done'> {
    const wait = call.wait!;
    // A sub-agent's questions are read by the sub-agent itself, when runCall continues it.
    if (wait.kind === 'agent') {
      call.status = 'todo';
      return 'todo';
    }
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
      this.done(call, { type: 'text', value: notRunText(o, this.rt.texts) });
      return 'done';
    }
    call.status = 'todo';
    call.wait = undefined;
    if (wait.kind === 'hook') {
      call.hookCleared = true;
      call.args = o.args;
    } else {
      // A trust grant was audited (`trusted`) by the decision that made it; the run only uses it.
      if (o.request.resolution?.trust) this.state.trust = 'some';
      call.authorizedBy = o.request.id;
      call.args = o.args;
    }
    return 'todo';
  }

  /**
   * Whether this thread surely has no trust grant: none was granted by a decision its run followed,
   * and no approval it still has to follow waits in the batch (a reviewer may have approved that one
   * with trust together with the answer that lets this call through).
   */
  private knowsNoTrust(): boolean {
    return (
      this.state.trust === 'none' &&
      !this.state.batch?.calls.some((c) => c.status === 'waiting' && c.wait?.kind === 'approval')
    );
  }

  /**
   * One call in the pipeline's order: hooks, validation, then the gate (or the approval that
   * authorized it) → pause | run; a delegation runs its agent instead of a tool.
   */
  protected async runCall(call: PendingCall, fresh: NewWait[]): Promise<'done' | 'waiting' | 'busy'> {
    // Whatever row an earlier call's outcome read is older than this call's work: the boundary reads anew.
    this.claimedRow = undefined;
    // A sub-agent already under way passed its hooks and gate when it started: continue it.
    if (call.child) return this.runSubAgent(call);
    const tool = this.rt.tools.get(call.toolName);
    if (!tool) {
      this.done(call, {
        type: 'error-text',
        value: `Unknown tool "${call.toolName}". Use one of: ${[...this.rt.tools.keys()].join(', ')}.`,
      });
      return 'done';
    }
    const hooked = await this.beforeToolCall(call, fresh);
    if (hooked) return hooked;
    const parsed = tool.schema.safeParse(call.args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(args)'}: ${i.message}`).join('; ');
      this.done(call, {
        type: 'error-text',
        value: `Invalid arguments for ${call.toolName}: ${issues}. Fix them and call again.`,
      });
      return 'done';
    }
    const args = parsed.data;
    const run = call.authorizedBy
      ? await this.approvedRun(call.authorizedBy)
      : await this.gateCall(call, tool, args, fresh);
    if (run === 'done' || run === 'waiting') return run;

    const delegation = delegationOf(tool);
    if (delegation?.kind === 'handoff') return this.handOff(call, delegation.agent.name);
    if (delegation) return this.runSubAgent(call, delegation.agent);
    return this.execute(call, tool, args, run, fresh);
  }

  /**
   * The `beforeToolCall` hook, once per call (not again after its own question was approved, nor for a
   * call a reviewer approved): it may cancel the call, ask a person, or rewrite the arguments.
   * Undefined when the call goes on.
   */
  private async beforeToolCall(call: PendingCall, fresh: NewWait[]): Promise<'done' | 'waiting' | undefined> {
    const hook = this.rt.opts.hooks?.beforeToolCall;
    if (!hook || call.hookCleared || call.authorizedBy) return undefined;
    const r = await hook(
      { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args },
      { threadId: this.threadId, appState: this.state.appState },
    );
    if (r && 'cancel' in r) {
      this.done(call, { type: 'text', value: r.cancel });
      return 'done';
    }
    if (r && 'interrupt' in r) {
      const i = r.interrupt;
      const w = this.newWait(
        'hook',
        i.name,
        { tool: call.toolName, args: call.args, toolCallId: call.toolCallId, evidence: i.details },
        askedVerdict('hook', i, this.rt.interruptRole),
      );
      this.wait(call, w, fresh);
      return 'waiting';
    }
    if (r && 'rewrite' in r) {
      this.audit.push(
        auditEvent(
          'edited',
          `hook:${this.rt.opts.name}`,
          { tool: call.toolName, originalArgs: call.args, args: r.rewrite, by: 'beforeToolCall' },
          { threadId: this.threadId },
        ),
      );
      call.args = r.rewrite;
    }
    call.hookCleared = true;
    this.dirty = true;
    return undefined;
  }

  /** A call a reviewer approved runs under its request's key, audited as executed by that decision. */
  private async approvedRun(requestId: string): Promise<CallRun> {
    const req = this.seen.get(requestId) ?? (await this.il.getRequestOrThrow(requestId));
    return {
      key: idempotencyKey(req.id, req.actionHash),
      requestId: req.id,
      request: req,
      why: { tier: req.tier, ruleId: req.ruleId, authorizedBy: req.resolution?.by ?? null },
      notifyRole: null,
    };
  }

  /**
   * The policy gate for a call no one approved yet: a block refuses it, approve and above pause it,
   * anything lower runs it under a key of thread, turn, call id and answers so far.
   */
  private async gateCall(
    call: PendingCall,
    tool: Tool,
    args: Record<string, unknown>,
    fresh: NewWait[],
  ): Promise<CallRun | 'done' | 'waiting'> {
    const verdict = await this.il.gate(
      { tool: call.toolName, args },
      {
        threadId: this.threadId,
        proposer: this.rt.identity,
        app: this.state.appState,
        ...(this.knowsNoTrust() ? { noTrustGrants: true } : {}),
      },
    );
    if (verdict.tier === 'block') {
      this.audit.push(
        auditEvent(
          'refused',
          'system:policy',
          { tool: call.toolName, args: redact(args), ruleId: verdict.ruleId, reason: verdict.reason, code: 'blocked' },
          { threadId: this.threadId },
        ),
      );
      this.done(call, { type: 'error-text', value: blockedText(verdict.reason, this.rt.texts) });
      return 'done';
    }
    if (tierRank(verdict.tier) >= tierRank('approve')) {
      const w = this.newWaitFromVerdict(call, args, verdict, await toolEvidence(tool, args, this.threadId));
      this.wait(call, w, fresh);
      return 'waiting';
    }
    const turn = this.state.batch?.turn;
    return {
      key: `${this.threadId}:${turn === undefined ? '' : `t${turn}:`}${call.toolCallId}${call.answers.length ? `:a${call.answers.length}` : ''}`,
      requestId: null,
      why: {
        tier: verdict.tier,
        ruleId: verdict.ruleId,
        reason: verdict.reason,
        ...(verdict.trustedBy ? { trustedBy: verdict.trustedBy } : {}),
      },
      notifyRole: verdict.tier === 'notify' ? verdict.role : null,
    };
  }

  /**
   * Claim → run → outcome: the tool runs once under the ledger, with what is not checkpointed yet
   * committed with the claim. A question the tool raises pauses the call; a claim held by another
   * run is 'busy'.
   */
  private async execute(
    call: PendingCall,
    tool: Tool,
    args: Record<string, unknown>,
    run: CallRun,
    fresh: NewWait[],
  ): Promise<'done' | 'waiting' | 'busy'> {
    // The claim taken with the decision, if this is its call: nothing of the run is new but what the
    // decision decided (read again the same from the store after a crash), so no checkpoint goes with it.
    const pre = this.takePreclaim(run.key, actionHash(call.toolName, args));
    const checkpoint = pre ? undefined : this.pendingCheckpoint();
    try {
      const out = await this.il.executeOnce(
        {
          key: run.key,
          tool: call.toolName,
          args,
          threadId: this.threadId,
          requestId: run.requestId,
          auditType: run.requestId ? 'executed' : 'auto_executed',
          auditPayload: run.why,
          notifyRole: run.notifyRole,
        },
        ({ idempotencyKey: k, attempt }) =>
          runTool(tool, args, call.answers, {
            threadId: this.threadId,
            toolCallId: call.toolCallId,
            idempotencyKey: k,
            attempt,
            appState: this.state.appState,
          }),
        {
          abandonIf: (e) => e instanceof ToolInterrupt,
          ...(this.rt.opts.leaseMs ? { leaseMs: this.rt.opts.leaseMs } : {}),
          ...(checkpoint ? { checkpoint } : {}),
          ...(pre ? { claimed: pre } : run.request ? { request: run.request } : {}),
          readThread: true,
        },
      );
      if (checkpoint) this.saved();
      if (out.status === 'in_progress') return 'busy';
      // Read as the outcome committed, after the tool ran: the next boundary's abort check needs no read.
      this.claimedRow = out.thread;
      this.state.usage.toolCalls++;
      this.done(
        call,
        out.status === 'succeeded'
          ? { type: 'json', value: toJson(out.result) }
          : { type: 'error-text', value: `The tool failed: ${out.error}` },
      );
      return 'done';
    } catch (err) {
      // Any other error abandons this run (the caller gives the lease back); what it did not commit is redone.
      if (!(err instanceof ToolInterrupt)) throw err;
      // An interrupt is raised inside the tool, after the claim (and the checkpoint with it) committed.
      if (checkpoint) this.saved();
      this.wait(call, this.toolQuestion(call, err.request), fresh);
      return 'waiting';
    }
  }

  /** The question a tool raised with `context.interrupt`, as a wait of the call. */
  private toolQuestion(call: PendingCall, q: InterruptRequest): NewWait {
    return this.newWait(
      'tool',
      q.name,
      {
        tool: call.toolName,
        args: { question: q.reason, ...(q.details ?? {}) },
        toolCallId: call.toolCallId,
        evidence: q.details,
      },
      askedVerdict('tool', q, this.rt.interruptRole),
    );
  }
}

/** The verdict of a question a hook or a tool asks: under its own role and timeout, else the agent's role. */
function askedVerdict(kind: 'hook' | 'tool', q: InterruptRequest, role: string) {
  return {
    id: `${kind}:${q.name}`,
    reason: q.reason,
    role: q.role ?? role,
    ...(q.timeout ? { timeout: q.timeout } : {}),
    ...(q.onTimeout ? { onTimeout: q.onTimeout } : {}),
  };
}
