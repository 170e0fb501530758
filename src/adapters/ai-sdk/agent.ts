import type { ModelMessage, Tool, ToolApprovalStatus, ToolSet, TypedToolCall } from 'ai';
import { ConfigError, newId, type ApprovalRequest } from '../../core/index.ts';
import type { Interlock, RunnerResult, ThreadRunner } from '../../engine/index.ts';
import {
  CallRefusedError,
  createCallGate,
  interruptsOf,
  lastText,
  withThreadRun,
  runTurn,
  guardTool,
  noteBypass,
  watchWiring,
  busyResult,
  schemasOf,
  type AdapterCall,
  type InterlockExecution,
  type AdapterState,
  type CallCheck,
  type CallGateOptions,
  type RunCalls,
  type ThreadRun,
} from '../core/index.ts';

import { inHistory, newPart, type Part } from './messages.ts';

export { interlockRun, type InterlockExecution } from '../core/index.ts';

/** What Interlock hands your generation call: pass all three to `generateText`. */
export interface GenerateInput<TOOLS extends ToolSet> {
  /** Your tools, each `execute` wrapped: it runs only under a recorded reason (policy or decision), at most once. */
  tools: TOOLS;
  /** The approval hook: Interlock's policy and recorded decisions answer it. */
  toolApproval: (options: { toolCall: TypedToolCall<TOOLS>; messages: ModelMessage[] }) => Promise<ToolApprovalStatus>;
  /** The thread's conversation, from Interlock's storage. */
  messages: ModelMessage[];
  threadId: string;
}

/** The part of a `generateText` result the adapter reads. */
export interface GenerateOutput {
  /** All messages the call added (v7: `result.responseMessages`). */
  responseMessages: ModelMessage[] | PromiseLike<ModelMessage[]>;
}

/** Options of {@link createAiSdkAgent}. */
export interface AiSdkAgentOptions<TOOLS extends ToolSet> extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  /** Threads carry this name; the worker resumes them with the agent of that name. */
  name: string;
  /** Stored with each thread (default `1`). */
  version?: string;
  interlock: Interlock;
  /** Your AI SDK tools, as you pass them to `generateText`. */
  tools: TOOLS;
  /**
   * One generation: your `generateText` call with everything of yours (model, system, stopWhen…)
   * and `tools`, `toolApproval` and `messages` from Interlock.
   */
  generate: (input: GenerateInput<TOOLS>) => PromiseLike<GenerateOutput> | GenerateOutput;
}

/** What a run of an adapter thread came to (see {@link ThreadRunner}). */
export interface AiSdkRunResult extends RunnerResult {
  /** The messages this run added. */
  messages: ModelMessage[];
}

/** The AI SDK agent behind Interlock. */
export interface AiSdkAgent extends ThreadRunner {
  /** Start a thread, or continue a finished one, with a user message (or messages). */
  invoke(input: string | ModelMessage[], opts?: { threadId?: string }): Promise<AiSdkRunResult>;
  /** Continue a paused thread once its requests are decided; returns `interrupt` again while any is pending. */
  resume(threadId: string): Promise<AiSdkRunResult>;
}

const HOW =
  "Pass everything `generate` receives to generateText — `generateText({ model, ...input })` — so the SDK gets Interlock's `tools` and `toolApproval`, not your own tools.";

/**
 * Put Interlock in front of an AI SDK (v7) agent's tools. Every call is gated by
 * the policy: `auto`/`notify` run under the execute-once ledger, `block` is denied
 * with the rule's reason, `approve`/`escalate` pause through the SDK's own
 * approval mechanism and open a durable request (checkpoint, request, audit and
 * notification in one transaction). Decisions are made in Interlock (UI, API,
 * CLI, Slack); `resume` — or the Interlock worker, when the agent is registered
 * in `interlock.config.ts` — continues the thread from Interlock's storage.
 *
 * @example
 * const support = createAiSdkAgent({
 *   name: 'order-support', interlock, tools: { lookupOrder, issueRefund },
 *   generate: (i) => generateText({ model, system, stopWhen: stepCountIs(8), ...i }),
 * });
 * const r = await support.invoke('Refund order A-1001 ($850)');
 * // r.stopReason === 'interrupt' → a reviewer decides → await support.resume(r.threadId)
 */
export function createAiSdkAgent<TOOLS extends ToolSet>(o: AiSdkAgentOptions<TOOLS>): AiSdkAgent {
  if (!o || typeof o !== 'object')
    throw new ConfigError('createAiSdkAgent needs options: { name, interlock, tools, generate }.');
  if (typeof o.name !== 'string' || !o.name)
    throw new ConfigError('createAiSdkAgent: "name" must be a non-empty string.');
  if (!o.interlock)
    throw new ConfigError('createAiSdkAgent: "interlock" is required (createInterlock({ store, policy })).');
  if (!o.tools || typeof o.tools !== 'object')
    throw new ConfigError('createAiSdkAgent: "tools" must be your AI SDK tool set.');
  if (typeof o.generate !== 'function')
    throw new ConfigError(
      'createAiSdkAgent: "generate" must be a function calling generateText with what it receives.',
    );
  const il = o.interlock;
  const version = o.version ?? '1';
  // Reviewers' edits are validated against the tools' own schemas (zod's, where a tool has one).
  il.registerTools(schemasOf(o.tools as Record<string, { inputSchema?: unknown; description?: string }>));
  // The app's own tool objects run only through Interlock from now on: a `generate` that hands the SDK
  // the app's tools instead of the ones Interlock passes in fails closed instead of running them ungated.
  const originals = new Map<string, unknown>();
  for (const [name, t] of Object.entries(o.tools) as Array<[string, Tool]>)
    if (typeof t.execute === 'function') originals.set(name, guardTool(t, 'execute', name, 'AI SDK adapter', HOW));
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${o.name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });

  /** One generation over a held thread: gate, run, then save (pause or finish). */
  async function generate(run: ThreadRun, threadId: string, added: ModelMessage[]): Promise<AiSdkRunResult> {
    // A retry of this run (same history, same input) keys its automatic calls alike; another input does not.
    const calls = gate.forRun(threadId, run.state?.waiting, runTurn(run.messages.length, added));
    const callOf = (toolCallId: string, tool: string, input: unknown): AdapterCall => ({
      threadId,
      toolCallId,
      tool,
      args: (input ?? {}) as Record<string, unknown>,
    });
    const tools = wrapTools(o.tools, threadId, calls);
    const toolApproval: GenerateInput<TOOLS>['toolApproval'] = async ({ toolCall, messages: given }) => {
      const call = callOf(toolCall.toolCallId, toolCall.toolName, toolCall.input);
      // The step's messages are one array per step: two calls under one id in it are refused together.
      const c = await calls.check(call, given);
      // The SDK passes the call's own assistant message only when it re-checks an approval found in
      // the history: then only a decision recorded in Interlock approves, never the history's.
      if ((c.kind === 'ask' || c.kind === 'wait') && inHistory(given, call.toolCallId)) {
        return {
          type: 'denied',
          reason: `No reviewer approved call ${call.toolCallId} in Interlock${c.kind === 'wait' ? ` (request ${c.outcome.request.id} is pending)` : ''}; an approval in the conversation is not a decision. Nothing ran.`,
        };
      }
      switch (c.kind) {
        case 'run':
          return { type: 'not-applicable' };
        case 'block':
          // A denial keys the whole call id in the SDK: a collision denies every call under it.
          await gate.recordBlock(call, c);
          return { type: 'denied', reason: c.message };
        case 'ask':
          return { type: 'user-approval', reason: c.verdict.reason };
        case 'wait':
          return { type: 'user-approval', reason: c.outcome.request.reason };
        case 'approved':
          // The SDK asks again when the run continues: Interlock's record answers, not the history's.
          return c.mismatch
            ? {
                type: 'denied',
                reason: `The arguments differ from the ones approved on request ${c.outcome.request.id}; nothing ran.`,
              }
            : { type: 'approved' };
        case 'not_run':
          return { type: 'denied', reason: c.message };
      }
    };
    const messages = [...(run.messages as ModelMessage[]), ...added];
    const out = await watchWiring('AI SDK adapter', HOW, async () =>
      o.generate({ tools, toolApproval, messages, threadId }),
    );
    const response = [...(await out.responseMessages)];
    const newMessages = [...added, ...response];
    // The calls the SDK stopped on: its approval requests in this run's messages.
    const stopped = response.flatMap((m) => {
      if (m.role !== 'assistant' || typeof m.content === 'string') return [];
      const parts = m.content as Part[];
      return parts.flatMap((p) => {
        if (p.type !== 'tool-approval-request' || !p.toolCallId) return [];
        const callPart = parts.find((q) => q.type === 'tool-call' && q.toolCallId === p.toolCallId) as
          { toolName: string; input: unknown } | undefined;
        // A denied call (blocked, a repeated id) stopped nothing: only asks and waits pause.
        const c = calls.known(p.toolCallId);
        if (!callPart || (c?.kind !== 'ask' && c?.kind !== 'wait')) return [];
        return [
          {
            call: callOf(p.toolCallId, callPart.toolName, callPart.input),
            extra: p.approvalId ? { approvalId: p.approvalId } : {},
          },
        ];
      });
    });
    const { items, waiting, known } = await calls.collectPause(stopped);
    const state: AdapterState = { adapter: 'ai-sdk', waiting };
    if (items.length > 0) {
      const paused = await run.pause(newMessages, state, items, `agent:${o.name}`);
      return result(threadId, 'interrupt', newMessages, [...known, ...paused.requests]);
    }
    await run.finish(newMessages, state, waiting.length ? 'interrupted' : 'completed');
    return result(threadId, waiting.length ? 'interrupt' : 'end_turn', newMessages, known);
  }

  function wrapTools(tools: TOOLS, threadId: string, calls: RunCalls): TOOLS {
    const wrapped: Record<string, Tool> = {};
    for (const [name, t] of Object.entries(tools) as Array<[string, Tool]>) {
      const execute = originals.get(name) as Tool['execute'];
      if (typeof execute !== 'function') {
        wrapped[name] = t;
        continue;
      }
      wrapped[name] = {
        ...t,
        execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
          const call: AdapterCall = {
            threadId,
            toolCallId: options.toolCallId,
            tool: name,
            args: input as Record<string, unknown>,
          };
          const known = calls.known(call.toolCallId);
          // The SDK runs a call without asking the approval hook only when it was not handed the hook.
          if (!known) {
            noteBypass(`call ${call.toolCallId} of "${name}" (no toolApproval)`);
            throw new CallRefusedError(call, { code: 'not_wired', message: `Not run: ${HOW}` });
          }
          const r = await gate.run(
            call,
            async (args, ledger) => {
              const interlock: InterlockExecution = { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt };
              return await (execute as (i: unknown, opts: unknown) => unknown)(args, { ...options, interlock });
            },
            known,
          );
          if (r.status === 'refused') throw new CallRefusedError(call, r);
          if (r.status === 'failed') throw new Error(r.error);
          // The tool's own typed output, edited or not (UIs render it by the tool's type); the edit is in the audit.
          return r.result;
        },
      };
    }
    return wrapped as TOOLS;
  }

  function result(
    threadId: string,
    stopReason: string,
    messages: ModelMessage[],
    pending: readonly ApprovalRequest[],
  ): AiSdkRunResult {
    return { threadId, stopReason, text: lastText(messages), interrupts: interruptsOf(pending), messages };
  }

  /** Run an approved call of a step that still waits on other calls, as the SDK's result part for it. */
  async function runEarly(
    run: ThreadRun,
    threadId: string,
    toolCallId: string,
    c: Extract<CallCheck, { kind: 'approved' }>,
  ): Promise<unknown> {
    const callPart = (run.messages as ModelMessage[])
      .flatMap((m) => (m.role === 'assistant' && typeof m.content !== 'string' ? (m.content as Part[]) : []))
      .findLast((p) => p.type === 'tool-call' && p.toolCallId === toolCallId) as
      { toolName: string; input: unknown } | undefined;
    const tool = c.outcome.request.tool;
    const call: AdapterCall = {
      threadId,
      toolCallId,
      tool: callPart?.toolName ?? tool,
      args: (callPart?.input ?? {}) as Record<string, unknown>,
    };
    const execute = originals.get(call.tool) as ((i: unknown, opts: unknown) => unknown) | undefined;
    if (!execute) throw new CallRefusedError(call, { code: 'not_wired', message: `Tool ${call.tool} has no execute.` });
    const r = await gate.run(
      call,
      async (args, ledger) => {
        const interlock: InterlockExecution = { idempotencyKey: ledger.idempotencyKey, attempt: ledger.attempt };
        return await execute(args, { toolCallId, messages: run.messages, interlock });
      },
      c,
    );
    // Not run now (still running elsewhere, or refused): nothing is kept, the next resume tries again.
    if (r.status === 'refused') return undefined;
    const output =
      r.status === 'succeeded'
        ? typeof r.result === 'string'
          ? { type: 'text', value: r.result }
          : { type: 'json', value: r.result ?? null }
        : { type: 'error-text', value: r.error };
    return { type: 'tool-result', toolCallId, toolName: call.tool, output };
  }

  const held = (threadId: string, fresh: boolean, fn: (run: ThreadRun) => Promise<AiSdkRunResult>) =>
    withThreadRun(
      il,
      { threadId, agent: o.name, version, fresh, integration: 'ai-sdk' },
      () => ({ ...busyResult(threadId), messages: [] }),
      fn,
    );

  return {
    name: o.name,
    version,
    async invoke(input, opts = {}) {
      const threadId = opts.threadId ?? newId<string>('thr');
      const added: ModelMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
      if (added.length === 0) throw new ConfigError('invoke needs a user message: a non-empty string or messages.');
      return held(threadId, true, async (run) => {
        // A chat UI (useChat) sends the whole conversation each time: what Interlock saved already is
        // not added again, only what follows it.
        return generate(run, threadId, newPart(run.messages as ModelMessage[], added));
      });
    },
    async resume(threadId) {
      return held(threadId, false, async (run) => {
        const waiting = run.state?.waiting ?? [];
        if (waiting.length === 0) {
          await run.release();
          return result(threadId, 'end_turn', [], []);
        }
        const pending: ApprovalRequest[] = [];
        const parts: unknown[] = [];
        const settled = new Map((run.state?.settled ?? []).map((x) => [x.toolCallId, x.part]));
        const early: Array<{ w: (typeof waiting)[number]; c: Extract<CallCheck, { kind: 'approved' }> }> = [];
        for (const w of waiting) {
          const c = await gate.decisionOf(w.requestId);
          if (c.kind === 'wait') pending.push(c.outcome.request);
          else if (c.kind === 'approved') {
            parts.push({ type: 'tool-approval-response', approvalId: w.approvalId, approved: true });
            // A call run early (below) has its result: the SDK keeps it and does not run the call again.
            const done = settled.get(w.toolCallId);
            if (done) parts.push(done);
            else early.push({ w, c });
          } else if (c.kind === 'not_run') {
            parts.push({
              type: 'tool-approval-response',
              approvalId: w.approvalId,
              approved: false,
              reason: c.message,
            });
            // An answer stands in for the tool's result; the SDK keeps an existing result and does not deny over it.
            if (c.answered)
              parts.push({
                type: 'tool-result',
                toolCallId: w.toolCallId,
                toolName: c.outcome.request.tool,
                output: { type: 'text', value: c.message },
              });
          }
        }
        if (pending.length > 0) {
          // The model goes on only when every call of its step is settled (the SDK needs all results),
          // but an approved call does not wait for its siblings: it runs now, and its result is kept
          // for the step's resume.
          if (early.length === 0) {
            await run.release();
            return result(threadId, 'interrupt', [], pending);
          }
          for (const { w, c } of early) {
            const part = await runEarly(run, threadId, w.toolCallId, c);
            if (part) settled.set(w.toolCallId, part);
          }
          const state: AdapterState = {
            adapter: 'ai-sdk',
            waiting,
            settled: [...settled].map(([toolCallId, part]) => ({ toolCallId, part })),
          };
          await run.finish([], state, 'interrupted');
          return result(threadId, 'interrupt', [], pending);
        }
        return generate(run, threadId, [{ role: 'tool', content: parts } as ModelMessage]);
      });
    },
    async abort(threadId, by = `agent:${o.name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}
