import { InterlockUsageError, redact, tierRank } from '../core/index.ts';
import { delegationOf, internalsOf } from './delegation.ts';
import type { Agent, Interrupt } from './types.ts';
import { auditEvent, blockedText, idempotencyKey } from '../engine/index.ts';
import type { ToolOutput } from './messages.ts';
import type { PendingCall } from './state.ts';
import { ToolInterrupt, type InterruptRequest } from './tool.ts';
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

  /** Hooks, validation, gate, execution of one call. */
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
    const hook = this.rt.opts.hooks?.beforeToolCall;
    if (hook && !call.hookCleared && !call.authorizedBy) {
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
          {
            id: `hook:${i.name}`,
            reason: i.reason,
            role: i.role ?? this.rt.interruptRole,
            ...(i.timeout ? { timeout: i.timeout } : {}),
            ...(i.onTimeout ? { onTimeout: i.onTimeout } : {}),
          },
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
    }
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
            {
              tool: call.toolName,
              args: redact(args),
              ruleId: verdict.ruleId,
              reason: verdict.reason,
              code: 'blocked',
            },
            { threadId: this.threadId },
          ),
        );
        this.done(call, {
          type: 'error-text',
          value: blockedText(verdict.reason, this.rt.texts),
        });
        return 'done';
      }
      if (tierRank(verdict.tier) >= tierRank('approve')) {
        const w = this.newWaitFromVerdict(call, args, verdict, await toolEvidence(tool, args, this.threadId));
        this.wait(call, w, fresh);
        return 'waiting';
      }
      const turn = this.state.batch?.turn;
      key = `${this.threadId}:${turn === undefined ? '' : `t${turn}:`}${call.toolCallId}${call.answers.length ? `:a${call.answers.length}` : ''}`;
      why = {
        tier: verdict.tier,
        ruleId: verdict.ruleId,
        reason: verdict.reason,
        ...(verdict.trustedBy ? { trustedBy: verdict.trustedBy } : {}),
      };
      if (verdict.tier === 'notify') notifyRole = verdict.role;
    }

    const delegation = delegationOf(tool);
    if (delegation?.kind === 'handoff') return this.handOff(call, delegation.agent.name);
    if (delegation) return this.runSubAgent(call, delegation.agent);

    const checkpoint = this.pendingCheckpoint();
    const answers = call.answers;
    let next = 0;
    try {
      const out = await this.il.executeOnce(
        {
          key,
          tool: call.toolName,
          args,
          threadId: this.threadId,
          requestId,
          auditType: requestId ? 'executed' : 'auto_executed',
          auditPayload: why,
          notifyRole,
        },
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
            result = await tool.execute(args, {
              threadId: this.threadId,
              toolCallId: call.toolCallId,
              idempotencyKey: k,
              attempt,
              appState: this.state.appState,
              interrupt,
            });
          } catch (err) {
            throw asked ?? err;
          }
          if (asked) throw asked;
          return result;
        },
        {
          abandonIf: (e) => e instanceof ToolInterrupt,
          ...(this.rt.opts.leaseMs ? { leaseMs: this.rt.opts.leaseMs } : {}),
          ...(checkpoint ? { checkpoint } : {}),
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
      const q = err.request;
      const w = this.newWait(
        'tool',
        q.name,
        {
          tool: call.toolName,
          args: { question: q.reason, ...(q.details ?? {}) },
          toolCallId: call.toolCallId,
          evidence: q.details,
        },
        {
          id: `tool:${q.name}`,
          reason: q.reason,
          role: q.role ?? this.rt.interruptRole,
          ...(q.timeout ? { timeout: q.timeout } : {}),
          ...(q.onTimeout ? { onTimeout: q.onTimeout } : {}),
        },
      );
      this.wait(call, w, fresh);
      return 'waiting';
    }
  }
}
