import type { ApprovalRequest, AuditEventInput } from '../core/index.ts';
import type { ExecuteOptions, GateVerdict, PreClaim } from '../engine/index.ts';
import type { ThreadRow } from '../store/types.ts';
import { userMessage, type Message } from './messages.ts';
import { LOOP_STATE_VERSION, type LoopState, type PendingCall, type Wait, type WaitKind } from './state.ts';
import type { AgentRuntime, TreeInfo } from './types.ts';

export type { AgentRuntime } from './types.ts';
import { resolveWait } from './waits.ts';
import { approvalWait, budgetWait, controlWait, conversationEvidence, type NewWait } from './new-waits.ts';

/**
 * What a run holds and how it records it: the thread, its loop state and
 * messages, what is not checkpointed yet, and the questions it builds. The loop
 * itself (model steps, tool calls, pauses) is {@link Run} in run.ts.
 */
export abstract class RunBase {
  /** The thread's own agent (whose name the thread carries). */
  protected readonly home: AgentRuntime;
  protected readonly threadId: string;
  /** Where this run sits in a tree of agents; undefined for a thread of its own. */
  tree: TreeInfo | undefined;
  protected state: LoopState;
  protected readonly messages: Message[];
  /** Messages produced in this run and not yet checkpointed. */
  protected unsaved: Message[] = [];
  protected dirty = false;
  protected readonly seen = new Map<string, ApprovalRequest>();
  protected readonly audit: AuditEventInput[] = [];

  /**
   * The thread row as the database last told this run of it — the lease claim's, or the last
   * execution outcome's — when nothing has happened since: the next boundary's abort check needs no read.
   */
  protected claimedRow: ThreadRow | undefined;

  /** Requests resolved by this invoke's decisions, as they committed: read once from here instead of the store. */
  protected readonly known: Map<string, ApprovalRequest>;

  /** The run's lease on the thread (its owner name). */
  protected readonly leaseOwner: string;

  constructor(
    rt: AgentRuntime,
    threadId: string,
    leaseOwner: string,
    state: LoopState,
    messages: Message[],
    claimedRow?: ThreadRow,
    known?: Map<string, ApprovalRequest>,
  ) {
    this.home = rt;
    this.leaseOwner = leaseOwner;
    this.threadId = threadId;
    this.state = state;
    this.messages = messages;
    this.claimedRow = claimedRow;
    this.known = known ?? new Map<string, ApprovalRequest>();
    this.decided = [...this.known.keys()];
  }

  /**
   * An execution claimed with the decision that started this run ({@link DecideOptions.claimExecution}):
   * the approved call runs under it without a claim transaction of its own. Given back if the run stops
   * before the call ({@link releaseUnusedClaim}).
   */
  preclaim: PreClaim | undefined;

  /** The claim taken with the decision, for the call under `key` with this action (once); else undefined. */
  protected takePreclaim(key: string, hash: string): PreClaim | undefined {
    const pre = this.preclaim;
    if (pre?.key !== key || pre.actionHash !== hash) return undefined;
    this.preclaim = undefined;
    return pre;
  }

  /** Give back a claim taken with the decision that this run did not use: its request is authorized again. */
  async releaseUnusedClaim(): Promise<void> {
    const pre = this.preclaim;
    if (!pre) return;
    this.preclaim = undefined;
    await this.il.releaseClaim(pre);
  }

  /** Requests this invoke's decisions resolved: their resume jobs are moot once the run stops durably past them. */
  protected decided: string[];

  /** The decided requests to settle with the next durable stop (once). */
  protected settle(): string[] {
    return this.decided.splice(0);
  }

  protected resolve(wait: Wait) {
    return resolveWait(this.il, wait, this.seen, this.known);
  }

  /** The agent speaking now: the thread's own, or the one the conversation was handed off to. */
  protected get rt(): AgentRuntime {
    return (this.state.active && this.home.peer(this.state.active)) || this.home;
  }

  /** Agent names from the tree's root to the agent speaking now (one name for a lone agent). */
  protected path(): string[] {
    const base = this.tree?.path ?? [this.home.opts.name];
    return this.state.active ? [...base, this.state.active] : base;
  }

  /** Application facts for a request: the thread's, plus the agent path when the proposer is not the root alone. */
  protected requestApp(): Record<string, unknown> {
    const path = this.path();
    return path.length > 1 ? { ...this.state.appState, agentPath: path } : this.state.appState;
  }

  protected get il() {
    return this.rt.opts.interlock;
  }

  /** The thread as this run writes it: every write is fenced by the run's lease. */
  protected thread() {
    return {
      id: this.threadId,
      agent: this.home.opts.name,
      agentVersion: this.home.opts.version,
      leaseOwner: this.leaseOwner,
    };
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

  protected push(m: Message): void {
    this.messages.push(m);
    this.unsaved.push(m);
    this.dirty = true;
  }

  /**
   * What happened so far, to make durable before a side effect (a crash after it
   * must not repeat a model call); it commits with the execution's claim.
   * Undefined when nothing changed since the last checkpoint.
   */
  protected pendingCheckpoint(): ExecuteOptions['checkpoint'] {
    if (!this.dirty) return undefined;
    return {
      thread: this.thread(),
      checkpoint: this.checkpointInput(),
      status: 'running',
      audit: this.audit.splice(0),
    };
  }

  /** The pending checkpoint committed (with the claim): nothing is unsaved any more. */
  protected saved(): void {
    this.unsaved = [];
    this.dirty = false;
  }

  protected checkpointInput() {
    return {
      newMessages: this.unsaved,
      state: this.state as unknown as Record<string, unknown>,
      schemaVersion: LOOP_STATE_VERSION,
    };
  }

  protected evidence(extra?: Record<string, unknown>): Record<string, unknown> {
    return conversationEvidence(this.messages, extra);
  }

  protected newWaitFromVerdict(
    call: PendingCall,
    args: Record<string, unknown>,
    verdict: GateVerdict,
    extra?: Record<string, unknown>,
  ): NewWait {
    return approvalWait(call, args, verdict, this.evidence(extra), this.requestApp());
  }

  protected newWait(
    kind: WaitKind,
    name: string,
    action: {
      tool: string;
      args: Record<string, unknown>;
      toolCallId?: string;
      evidence?: Record<string, unknown> | undefined;
    },
    v: Parameters<typeof controlWait>[3],
  ): NewWait {
    return controlWait(kind, name, action, v, this.evidence(action.evidence), this.requestApp());
  }

  /** Budget: ask when spending reaches `askAt` of the (granted) budget. */
  protected checkBudget(): NewWait | undefined {
    return budgetWait(this.rt.opts.budget, this.state, this.evidence());
  }

  protected wait(call: PendingCall, w: NewWait, fresh: NewWait[]): void {
    call.status = 'waiting';
    call.wait = w.wait;
    this.dirty = true;
    fresh.push(w);
  }
}
