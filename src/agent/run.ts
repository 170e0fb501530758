import { redact, type Duration, type TimeoutDecision } from '../core/index.ts';
import { auditEvent } from '../engine/index.ts';
import type { ThreadStatus } from '../store/types.ts';
import type { HookCall } from './hooks.ts';
import { textOf, userMessage } from './messages.ts';
import { generate, type ModelTurn } from './model.ts';
import type { PendingCall, Wait } from './state.ts';
import type { AgentResult, Interrupt, StopReason } from './types.ts';
import { notRunText } from './waits.ts';
import { CallStep } from './call-step.ts';
import { userFacing, type NewWait } from './new-waits.ts';
import { abortTree } from './delegation.ts';

export type { AgentRuntime } from './run-base.ts';

/**
 * One run of the loop over one thread, from its latest checkpoint until it
 * ends, pauses, or stops. Holds the thread's lease for its duration.
 */
export class Run extends CallStep {
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
        this.closeBatch(this.state.batch.calls);
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

      const turn = await this.modelTurn();
      if (turn.toolCalls.length === 0) return this.finish('end_turn', 'completed');
      await this.proposeBatch(turn);
    }
  }

  /** Every call of the batch has its result: the results go to the model, and a handoff made in the batch takes effect. */
  private closeBatch(calls: PendingCall[]): void {
    this.push({
      role: 'tool',
      content: calls.map((c) => ({
        type: 'tool-result' as const,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        output: c.output!,
      })),
    });
    this.state.batch = null;
    if (this.state.handoffTo !== undefined) {
      // The batch is answered: the receiving agent speaks from the next turn on.
      const to = this.state.handoffTo;
      delete this.state.handoffTo;
      if (to === this.home.opts.name) delete this.state.active;
      else this.state.active = to;
    }
  }

  /** One model call over the conversation, its usage counted and its message kept. */
  private async modelTurn(): Promise<ModelTurn> {
    const turn = await generate(this.rt.opts.model, {
      // After a handoff the receiving agent's instructions lead; the thread's own stay as checkpointed.
      prompt: [
        { role: 'system', content: this.state.active ? this.rt.opts.system : this.state.system },
        ...this.messages,
      ],
      tools: this.rt.toolDefs,
      toolChoice: { type: 'auto' },
    });
    this.state.iterations++;
    this.state.usage.inputTokens += turn.usage.inputTokens;
    this.state.usage.outputTokens += turn.usage.outputTokens;
    const per = this.rt.opts.budget?.costPerToken;
    if (per) this.state.usage.cost += turn.usage.inputTokens * per.input + turn.usage.outputTokens * per.output;
    this.push(turn.message);
    return turn;
  }

  /** The model's tool calls become the batch, with the checks it must pass first (confidence, the batch hook). */
  private async proposeBatch(turn: ModelTurn): Promise<void> {
    const calls: PendingCall[] = turn.toolCalls.map((c) => ({
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      args:
        c.input !== null && typeof c.input === 'object' && !Array.isArray(c.input)
          ? (c.input as Record<string, unknown>)
          : {},
      status: 'todo',
      answers: [],
    }));
    this.refuseRepeatedIds(calls);
    const checks: Array<'confidence' | 'hook'> = [];
    const conf = this.rt.opts.confidence;
    if (conf && (await conf.score(turn)) < conf.threshold) checks.push('confidence');
    if (this.rt.opts.hooks?.beforeToolBatch && calls.length > 1) checks.push('hook');
    this.state.batch = { calls, turn: this.state.iterations, ...(checks.length ? { checks } : {}) };
  }

  /**
   * Two calls of one model step under one call id: their results are keyed by that id, so neither could
   * get its own (one was handed the other's result). Each is refused, visibly and audited, before
   * anything of the step runs; the model can propose them again with their own ids.
   */
  private refuseRepeatedIds(calls: PendingCall[]): void {
    const count = new Map<string, number>();
    for (const c of calls) count.set(c.toolCallId, (count.get(c.toolCallId) ?? 0) + 1);
    for (const c of calls) {
      if ((count.get(c.toolCallId) ?? 0) < 2) continue;
      this.done(c, {
        type: 'error-text',
        value: this.rt.texts.duplicateCallId(c.toolCallId),
      });
      this.audit.push(
        auditEvent(
          'refused',
          'system:policy',
          {
            tool: c.toolName,
            args: redact(c.args),
            toolCallId: c.toolCallId,
            code: 'duplicate_call_id',
            reason: 'duplicate_call_id',
          },
          { threadId: this.threadId },
        ),
      );
    }
  }

  /** The pause: new requests, checkpoint and audit in one transaction; or only a checkpoint if nothing new. */
  private async pauseWith(fresh: NewWait[]): Promise<AgentResult> {
    await this.releaseUnusedClaim();
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
      await this.il.checkpoint(
        this.thread(),
        this.dirty ? this.checkpointInput() : undefined,
        'interrupted',
        this.audit.splice(0),
        { releaseLease: true, settleResumeJobs: this.settle() },
      );
      this.unsaved = [];
      this.dirty = false;
    }
    return this.result('interrupt', 'interrupted');
  }

  private async finish(reason: StopReason, status: ThreadStatus): Promise<AgentResult> {
    // Before an abort cancels the thread's open requests: a claim given back leaves its request authorized.
    await this.releaseUnusedClaim();
    if (reason === 'aborted') {
      this.audit.push(auditEvent('aborted', this.rt.identity, { at: 'boundary' }, { threadId: this.threadId }));
      await this.cancelPending();
    }
    if (reason === 'busy') {
      // Not past the decided requests yet: their resume jobs must still run the thread later.
      await this.il.checkpoint(
        this.thread(),
        this.dirty ? this.checkpointInput() : undefined,
        'running',
        this.audit.splice(0),
        { releaseLease: true },
      );
    } else if (!this.dirty && this.audit.length === 0) {
      // A resume that found nothing to do writes nothing but the lease release.
      await this.il.checkpoint(this.thread(), undefined, status, [], {
        releaseLease: true,
        settleResumeJobs: this.settle(),
      });
    } else {
      if (status === 'completed')
        this.audit.push(
          auditEvent('thread_completed', this.rt.identity, { stopReason: reason }, { threadId: this.threadId }),
        );
      await this.il.checkpoint(this.thread(), this.checkpointInput(), status, this.audit.splice(0), {
        releaseLease: true,
        settleResumeJobs: this.settle(),
      });
    }
    this.unsaved = [];
    this.dirty = false;
    return this.result(reason, status);
  }

  private async cancelPending(): Promise<void> {
    // Every open request of the thread, not only this run's waits: an aborted thread resumes no more.
    await this.il.threads.cancelOpenRequests(this.threadId, this.rt.identity, 'the thread was aborted');
    // And its sub-agents' threads, which run only inside it.
    for (const c of this.state.batch?.calls ?? [])
      if (c.child && c.status !== 'done') await abortTree(this.il, c.child, this.rt.identity);
  }

  result(stopReason: StopReason, status: ThreadStatus): AgentResult {
    const interrupts: Interrupt[] = [];
    const path = this.path();
    const add = (w: Wait | undefined | null, call?: PendingCall) => {
      if (!w) return;
      if (w.kind === 'agent') {
        // A sub-agent's questions, as it reported them (each with its own path).
        if (call) interrupts.push(...(this.childInterrupts.get(call.toolCallId) ?? []));
        return;
      }
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
        ...(path.length > 1 ? { path } : {}),
      });
    };
    if (stopReason === 'interrupt') {
      add(this.state.control);
      add(this.state.batch?.wait);
      for (const c of this.state.batch?.calls ?? []) if (c.status === 'waiting') add(c.wait, c);
    }
    const lastAssistant = [...this.messages].reverse().find((m) => m.role === 'assistant');
    return {
      threadId: this.threadId,
      stopReason,
      status,
      interrupts,
      messages: this.messages,
      text: textOf(lastAssistant),
      usage: { ...this.state.usage },
    };
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
        for (const c of batch.calls)
          if (c.status !== 'done') this.done(c, { type: 'text', value: notRunText(o, this.rt.texts) });
        b.checks = [];
      }
    }
    while (b.checks && b.checks.length > 0) {
      const check = b.checks[0]!;
      const calls: HookCall[] = batch.calls.map((c) => ({
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        args: c.args,
      }));
      let ask:
        { name: string; reason: string; role?: string; timeout?: Duration; onTimeout?: TimeoutDecision } | undefined;
      if (check === 'confidence') {
        const conf = this.rt.opts.confidence!;
        ask = {
          name: 'low_confidence',
          reason: `The agent's confidence in this step is below ${conf.threshold}; review the planned tool calls.`,
          role: conf.role,
          ...(conf.timeout ? { timeout: conf.timeout } : {}),
          ...(conf.onTimeout ? { onTimeout: conf.onTimeout } : {}),
        };
      } else {
        const r = await this.rt.opts.hooks!.beforeToolBatch!(calls, {
          threadId: this.threadId,
          appState: this.state.appState,
        });
        ask = r?.interrupt;
      }
      if (!ask) {
        b.checks.shift();
        continue;
      }
      const w = this.newWait(
        check === 'confidence' ? 'confidence' : 'batch',
        ask.name,
        { tool: `batch:${ask.name}`, args: { calls } },
        {
          id: `interrupt:${ask.name}`,
          reason: ask.reason,
          role: ask.role ?? this.rt.interruptRole,
          ...(ask.timeout ? { timeout: ask.timeout } : {}),
          ...(ask.onTimeout ? { onTimeout: ask.onTimeout } : {}),
        },
      );
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
