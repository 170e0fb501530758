import type { ApprovalRequest, AuditEventInput } from '../core/index.ts';
import { auditEvent, type Interlock } from '../engine/index.ts';
import type { ThreadStatus } from '../store/types.ts';
import { abortTree, childThreadsOf, internalsOf } from './delegation.ts';
import type {
  BeforeNodeEvent,
  GraphOptions,
  GraphResult,
  GraphState,
  GraphTask,
  NodeAnswer,
  NodeInterruptRequest,
} from './graph-types.ts';
import type { Message } from './messages.ts';
import { controlWait, toJson, type NewWait } from './new-waits.ts';
import { ToolInterrupt } from './tool.ts';
import type { Interrupt } from './types.ts';
import { resolveWait, toAnswer } from './waits.ts';
import { NodeQuestion, NodeSettled, nodeAnswerOf, textOfTasks, toInterrupt } from './graph-answers.ts';

/** Schema version of a graph thread's checkpointed state. */
export const GRAPH_STATE_VERSION = 1;

/** The engine's name for a node's questions (registered as an ungated step, so edits are checked). */
export const nodeTool = (graph: string, node: string) => `node:${graph}/${node}`;

/**
 * One run of a graph over its thread, holding the thread's lease: it works the current step's
 * nodes concurrently, pauses when any waits on a person (the others finish and their results are
 * kept), and moves to the next step along the edges once every node of the step has finished.
 */
export class GraphRun {
  private readonly seen = new Map<string, ApprovalRequest>();
  private readonly childInterrupts = new Map<string, Interrupt[]>();
  private readonly audit: AuditEventInput[] = [];
  private unsaved: Message[] = [];
  private dirty = false;

  private readonly o: GraphOptions;
  private readonly threadId: string;
  private readonly leaseOwner: string;
  private state: GraphState | undefined;

  constructor(o: GraphOptions, threadId: string, leaseOwner: string, state: GraphState | undefined) {
    this.o = o;
    this.threadId = threadId;
    this.leaseOwner = leaseOwner;
    this.state = state;
  }

  private get il(): Interlock {
    return this.o.interlock;
  }

  private thread() {
    return { id: this.threadId, agent: this.o.name, agentVersion: this.o.version, leaseOwner: this.leaseOwner };
  }

  /** True while some node waits on a person. */
  isWaiting(): boolean {
    return this.state?.tasks.some((t) => t.status === 'waiting') ?? false;
  }

  /** New input: the graph starts over at its start nodes (what finished before stays in the thread's history). */
  start(input: string): void {
    const starts = Array.isArray(this.o.start) ? this.o.start : [this.o.start];
    // Steps count on across inputs: an agent node's child thread is keyed by its step, so a new run never meets an old one.
    const step = this.state ? this.state.step + 1 : 0;
    this.state = {
      v: GRAPH_STATE_VERSION,
      graphVersion: this.o.version,
      step,
      first: step,
      outputs: {},
      tasks: starts.map((node) => ({ node, input, status: 'todo', hookAnswers: [], answers: [] })),
    };
    this.unsaved.push({ role: 'user', content: [{ type: 'text', text: input }] });
    this.dirty = true;
  }

  async loop(): Promise<GraphResult> {
    if (this.dirty) await this.save('running'); // the input is durable before any node runs
    const maxSteps = this.o.maxSteps ?? 25;
    for (;;) {
      const st = this.state;
      if (!st || st.tasks.length === 0) return this.finish('end_turn', 'completed');
      if ((await this.il.threads.getThread(this.threadId))?.abortRequested) return this.finish('aborted', 'aborted');
      const fresh: NewWait[] = [];
      const steps = await Promise.all(st.tasks.filter((t) => t.status !== 'done').map((t) => this.runTask(t, fresh)));
      if (steps.includes('busy')) return this.finish('busy', 'running');
      if (fresh.length > 0 || steps.includes('waiting')) return this.pause(fresh);
      // Every node of the step finished: keep their results, follow the edges.
      for (const t of st.tasks) st.outputs[t.node] = t.output;
      const last = st.tasks;
      const next = this.nextTasks(st);
      if (next.length === 0 || st.step - (st.first ?? 0) + 1 >= maxSteps) {
        this.unsaved.push({ role: 'assistant', content: [{ type: 'text', text: textOfTasks(last) }] });
        st.tasks = next.length === 0 ? [] : next;
        st.step++;
        this.dirty = true;
        return this.finish(next.length === 0 ? 'end_turn' : 'max_iterations', 'completed', last);
      }
      st.step++;
      st.tasks = next;
      this.dirty = true;
      await this.save('running');
    }
  }

  /** The next step's nodes: targets of the edges the finished nodes take, each with its input. */
  private nextTasks(st: GraphState): GraphTask[] {
    const inputs = new Map<string, Record<string, unknown>>();
    for (const t of st.tasks) {
      for (const e of this.o.edges ?? []) {
        if (e.from !== t.node || (e.when && !e.when(t.output, st.outputs))) continue;
        const into = inputs.get(e.to) ?? {};
        into[t.node] = t.output;
        inputs.set(e.to, into);
      }
    }
    // One source: its output is the input; several: the outputs by source name.
    return [...inputs.entries()].map(([node, from]) => {
      const sources = Object.values(from);
      return { node, input: sources.length === 1 ? sources[0] : from, status: 'todo', hookAnswers: [], answers: [] };
    });
  }

  /** One node of the step: its answered question, its hooks, then the node itself. */
  private async runTask(t: GraphTask, fresh: NewWait[]): Promise<'done' | 'waiting' | 'busy'> {
    if (t.status === 'waiting' && t.wait && t.wait.kind !== 'agent') {
      const o = await resolveWait(this.il, t.wait, this.seen);
      if (o.state === 'pending') return 'waiting';
      if (t.wait.kind === 'node') t.hookAnswers.push(nodeAnswerOf(o));
      else t.answers.push(toAnswer(o));
      t.wait = undefined;
      t.status = 'todo';
      this.dirty = true;
    }
    if (!t.hooksDone && !t.child) {
      const asked = await this.runHooks(t);
      if (asked) {
        this.wait(t, this.question('node', t, asked.name, { input: t.input }, asked), fresh);
        return 'waiting';
      }
      if (t.status === 'done') return 'done';
    }
    const def = this.o.nodes[t.node]!;
    if ('agent' in def) return this.runAgentNode(t, def.agent);
    let next = 0;
    let asked: ToolInterrupt | undefined;
    const st = this.state!;
    let out: unknown;
    try {
      out = await def.run(t.input, {
        threadId: this.threadId,
        node: t.node,
        step: st.step,
        outputs: st.outputs,
        interrupt: (q) => {
          const a = t.answers[next++];
          if (a) return a;
          asked ??= new ToolInterrupt(q);
          throw asked;
        },
      });
    } catch (err) {
      if (!asked) throw err;
    }
    if (asked) {
      // A question from inside the node, asked like a tool's; whatever the node did after it is discarded.
      const q = asked.request;
      const w = this.question('tool', t, q.name, { question: q.reason, ...(q.details ?? {}) }, q);
      this.wait(t, w, fresh);
      return 'waiting';
    }
    this.settle(t, toJson(out));
    return 'done';
  }

  /**
   * Run every `beforeNode` hook, replaying the answers given so far. Returns the first question
   * nobody answered yet, or undefined once the hooks passed (or a reject/respond settled the node).
   */
  private async runHooks(t: GraphTask): Promise<NodeInterruptRequest | undefined> {
    const hooks = this.o.hooks?.beforeNode ?? [];
    const ev: BeforeNodeEvent = {
      threadId: this.threadId,
      node: t.node,
      step: this.state!.step,
      input: t.input,
      outputs: this.state!.outputs,
    };
    let next = 0;
    let asked: NodeQuestion | undefined;
    let settled: NodeAnswer | undefined;
    const interrupt = (q: NodeInterruptRequest): NodeAnswer => {
      const a = t.hookAnswers[next++];
      if (!a) throw (asked ??= new NodeQuestion(q));
      if (a.type === 'edit') ev.input = a.input; // later hooks (and the node) see the edited input
      if (a.type === 'reject' || a.type === 'respond') throw new NodeSettled((settled = a));
      return a;
    };
    for (const hook of hooks) {
      try {
        await hook(ev, { interrupt });
      } catch (err) {
        if (!(err instanceof NodeSettled) && !asked) throw err;
      }
      if (asked) return asked.request;
      if (settled) break;
    }
    t.input = ev.input;
    t.hooksDone = true;
    this.dirty = true;
    if (settled?.type === 'reject') this.settle(t, { cancelled: true, message: settled.message, by: settled.by });
    else if (settled?.type === 'respond') this.settle(t, settled.message);
    return undefined;
  }

  /** An agent node: its own durable thread under the graph's; its final text is the output. */
  private async runAgentNode(t: GraphTask, agent: Parameters<typeof internalsOf>[0]) {
    const st = this.state!;
    t.child ??= `${this.threadId}.${t.node}.${st.step}`;
    const child = await this.il.threads.getThread(t.child);
    const input = typeof t.input === 'string' ? t.input : JSON.stringify(t.input);
    const path = agent.name === t.node ? [this.o.name, t.node] : [this.o.name, t.node, agent.name];
    if ((child?.messageCount ?? 0) === 0 && !t.wait)
      this.audit.push(
        auditEvent(
          'delegated',
          `graph:${this.o.name}`,
          { kind: 'node', node: t.node, to: agent.name, childThreadId: t.child, path },
          { threadId: this.threadId },
        ),
      );
    const r = await internalsOf(agent, `graph node "${t.node}"`).runChild(
      (child?.messageCount ?? 0) > 0 ? null : input,
      t.child,
      { rootThreadId: this.threadId, parentThreadId: this.threadId, path },
    );
    if (r.stopReason === 'busy') return 'busy';
    if (r.stopReason === 'interrupt') {
      const first = r.interrupts[0];
      if (t.status !== 'waiting' || t.wait?.requestId !== first?.id) this.dirty = true;
      t.status = 'waiting';
      t.wait = { kind: 'agent', requestId: first?.id ?? '', name: t.node, reason: first?.reason ?? '' };
      this.childInterrupts.set(t.node, r.interrupts);
      return 'waiting';
    }
    this.settle(t, r.stopReason === 'aborted' ? { cancelled: true, message: `${agent.name} was stopped.` } : r.text);
    return 'done';
  }

  private settle(t: GraphTask, output: unknown): void {
    t.status = 'done';
    t.output = output;
    t.wait = undefined;
    this.dirty = true;
  }

  private question(
    kind: 'node' | 'tool',
    t: GraphTask,
    name: string,
    args: Record<string, unknown>,
    q: NodeInterruptRequest,
  ): NewWait {
    return controlWait(
      kind,
      name,
      { tool: nodeTool(this.o.name, t.node), args },
      {
        id: `${kind}:${name}`,
        reason: q.reason,
        role: q.role ?? this.o.interruptRole ?? 'supervisor',
        ...(q.timeout ? { timeout: q.timeout } : {}),
        ...(q.onTimeout ? { onTimeout: q.onTimeout } : {}),
      },
      { node: t.node, step: this.state!.step, ...(q.details ?? {}) },
      { agentPath: [this.o.name, t.node] },
    );
  }

  private wait(t: GraphTask, w: NewWait, fresh: NewWait[]): void {
    t.status = 'waiting';
    t.wait = w.wait;
    this.dirty = true;
    fresh.push(w);
  }

  private checkpointInput() {
    return {
      newMessages: this.unsaved,
      state: this.state as unknown as Record<string, unknown>,
      schemaVersion: GRAPH_STATE_VERSION,
    };
  }

  private async save(status: ThreadStatus, releaseLease = false): Promise<void> {
    await this.il.checkpoint(
      this.thread(),
      this.dirty ? this.checkpointInput() : undefined,
      status,
      this.audit.splice(0),
      { releaseLease },
    );
    this.unsaved = [];
    this.dirty = false;
  }

  private async pause(fresh: NewWait[]): Promise<GraphResult> {
    if (fresh.length === 0) await this.save('interrupted', true);
    else {
      const { requests } = await this.il.pause({
        thread: this.thread(),
        checkpoint: this.checkpointInput(),
        items: fresh.map((f) => f.item),
        proposer: `graph:${this.o.name}`,
        releaseLease: true,
        audit: this.audit.splice(0),
      });
      for (const r of requests) this.seen.set(r.id, r);
      this.unsaved = [];
      this.dirty = false;
    }
    return this.result('interrupt', 'interrupted');
  }

  private async finish(
    reason: GraphResult['stopReason'],
    status: ThreadStatus,
    last?: GraphTask[],
  ): Promise<GraphResult> {
    if (reason === 'aborted') {
      await this.il.threads.cancelOpenRequests(this.threadId, `graph:${this.o.name}`, 'the thread was aborted');
      for (const id of childThreadsOf(this.state as unknown as Record<string, unknown>))
        await abortTree(this.il, id, `graph:${this.o.name}`);
      this.audit.push(auditEvent('aborted', `graph:${this.o.name}`, {}, { threadId: this.threadId }));
    }
    if (status === 'completed' && this.dirty)
      this.audit.push(
        auditEvent('thread_completed', `graph:${this.o.name}`, { stopReason: reason }, { threadId: this.threadId }),
      );
    await this.save(status, true);
    return this.result(reason, status, last);
  }

  result(stopReason: GraphResult['stopReason'], status: ThreadStatus, last?: GraphTask[]): GraphResult {
    const interrupts: Interrupt[] = [];
    for (const t of stopReason === 'interrupt' ? (this.state?.tasks ?? []) : []) {
      if (t.status !== 'waiting' || !t.wait) continue;
      if (t.wait.kind === 'agent') {
        interrupts.push(...(this.childInterrupts.get(t.node) ?? []));
        continue;
      }
      const r = this.seen.get(t.wait.requestId);
      if (!r || r.status !== 'pending') continue;
      interrupts.push(toInterrupt(t.wait, r, [this.o.name, t.node]));
    }
    return {
      threadId: this.threadId,
      stopReason,
      status,
      interrupts,
      // Every finished node's output: also those of a step that paused on a sibling (docs/multi-agent.md).
      outputs: {
        ...(this.state?.outputs ?? {}),
        ...Object.fromEntries(
          (this.state?.tasks ?? []).filter((t) => t.status === 'done').map((t) => [t.node, t.output]),
        ),
      },
      text: last ? textOfTasks(last) : '',
    };
  }
}
