import type { HookCallback, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { actionHash } from '../../core/index.ts';
import type { HookContext } from './context.ts';
import type { Hold } from './hold.ts';
import { noteBypass, type AdapterCall, type CallCheck, type RunCalls } from '../core/index.ts';

/** What the adapter's hook decided for one Claude tool call (by Claude's tool_use id). */
export interface SeenCall {
  /** The call as Interlock knows it: the policy's tool name, and a paused call's own id when it was called again. */
  call: AdapterCall;
  /** Claude's name of the tool. */
  claudeName: string;
  check: CallCheck;
  /** Whether the hook let Claude run it (and with which input). */
  allowed: boolean;
  input: Record<string, unknown>;
  /** Why not, as the model reads it. */
  message?: string;
}

/**
 * One SDK turn of a thread as the adapter's hook sees it: the calls the hook decided, the calls that
 * need a person (the pause), and — on a resume — the calls that waited, found again by their action.
 */
export interface RunScope {
  readonly threadId: string;
  readonly calls: RunCalls;
  readonly seen: Map<string, SeenCall>;
  /** Calls the run stops on (they need a person, or still wait): the pause opens or keeps their requests. */
  readonly stopped: Array<{ call: AdapterCall; extra: { tool: string } }>;
  /** Ids of the paused calls this turn proposed again. */
  readonly reproposed: Set<string>;
  /** Set when Interlock's hooks fired in the turn: the query function passed its options on. */
  wired: boolean;
  /** Take the id of a paused call with this action, once: the model calls it again under a new id. */
  takePaused(hash: string): string | undefined;
  /** With `holdMs`: hold a call that needs a person until its decision (see {@link holdFor}). */
  hold?: Hold;
}

/** A scope for one turn; `paused` maps each waiting call's action hash to its call ids (oldest first). */
export function createScope(
  threadId: string,
  calls: RunCalls,
  paused: Map<string, string[]> = new Map(),
  hold?: Hold,
): RunScope {
  const reproposed = new Set<string>();
  return {
    threadId,
    calls,
    seen: new Map(),
    stopped: [],
    reproposed,
    wired: false,
    ...(hold ? { hold } : {}),
    takePaused(hash) {
      const id = paused.get(hash)?.shift();
      if (id) reproposed.add(id);
      return id;
    },
  };
}

type HookOut = Awaited<ReturnType<HookCallback>>;

function decision(
  permissionDecision: 'allow' | 'deny',
  reason: string,
  updatedInput?: Record<string, unknown>,
): HookOut {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision,
      permissionDecisionReason: reason,
      ...(updatedInput ? { updatedInput } : {}),
    },
  };
}

/**
 * The `PreToolUse` hook: every tool call of the turn (built-in, MCP, a sub-agent's) answered by the
 * policy or a recorded decision. Runs without a person → allow; blocked, rejected or answered → deny
 * with what the model reads; needs a person → deny, and the turn's pause opens the request.
 */
export function interlockHook(h: HookContext, scope: RunScope): HookCallback {
  return async (raw) => {
    if (raw.hook_event_name !== 'PreToolUse') return {};
    const input = raw;
    const args = (input.tool_input ?? {}) as Record<string, unknown>;
    const tool = h.policyName(input.tool_name);
    const id = scope.takePaused(actionHash(tool, args)) ?? input.tool_use_id;
    const call: AdapterCall = { threadId: scope.threadId, toolCallId: id, tool, args };
    const check = await scope.calls.check(call);
    // Held until decided (with holdMs), the call goes on as the decision says; otherwise it stops the turn.
    const decided = check.kind === 'ask' && scope.hold ? await scope.hold(call, check, input.tool_name) : undefined;
    const seen = await answer(h, call, input.tool_name, decided ?? check);
    scope.seen.set(input.tool_use_id, seen);
    if ((check.kind === 'ask' && !scope.hold) || check.kind === 'wait')
      scope.stopped.push({ call, extra: { tool: input.tool_name } });
    return seen.allowed ? decision('allow', 'Interlock: allowed', seen.input) : decision('deny', seen.message ?? '');
  };
}

/** The hook's answer for one checked call. */
async function answer(h: HookContext, call: AdapterCall, claudeName: string, check: CallCheck): Promise<SeenCall> {
  const base = { call, claudeName, check, input: call.args };
  switch (check.kind) {
    case 'run': {
      if (h.isOwn(claudeName)) return { ...base, allowed: true };
      // Claude Code runs this one itself: the ledger and the audit log record that it was let through
      // (and a notify rule's notification goes out); a replay after a crash lets it through again.
      const r = await h.gate.run(call, async () => ({ handedTo: 'claude-agent-sdk' }), check);
      return r.status === 'refused' ? { ...base, allowed: false, message: r.message } : { ...base, allowed: true };
    }
    case 'block':
      await h.gate.recordBlock(call, check);
      return { ...base, allowed: false, message: check.message };
    case 'not_run':
      return { ...base, allowed: false, message: check.message };
    case 'ask':
      return { ...base, allowed: false, message: h.texts.ask(check.verdict.reason) };
    case 'wait':
      return { ...base, allowed: false, message: h.texts.waiting() };
    case 'approved': {
      if (check.mismatch || h.isOwn(claudeName)) {
        // The own tool's body runs under the ledger and refuses a mismatch itself, with the reason.
        return {
          ...base,
          allowed: !check.mismatch,
          input: check.args,
          message: 'Not run: the arguments differ from the approved ones.',
        };
      }
      // Claude runs this tool itself: the approval is spent when the hook lets it through, once.
      const r = await h.gate.run(call, async () => ({ handedTo: 'claude-agent-sdk' }), check);
      if (r.status === 'succeeded' && !r.replayed) return { ...base, allowed: true, input: check.args };
      const message = r.status === 'refused' ? r.message : h.texts.ranOnce(check.outcome.request.id);
      return { ...base, allowed: false, message };
    }
  }
}

/**
 * The SDK's `canUseTool`, for calls the CLI still asks about after the hook (a settings `ask` rule):
 * answered from what the hook decided for that tool_use id, so nothing is allowed twice or around it.
 */
export function interlockCanUseTool(scope: RunScope) {
  return async (
    toolName: string,
    input: Record<string, unknown>,
    o: { toolUseID: string },
  ): Promise<PermissionResult> => {
    const seen = scope.seen.get(o.toolUseID);
    if (!seen) {
      noteBypass(`a permission request for "${toolName}"`);
      return { behavior: 'deny', message: 'Not run: this call did not pass Interlock.', interrupt: true };
    }
    return seen.allowed
      ? { behavior: 'allow', updatedInput: seen.input ?? input }
      : { behavior: 'deny', message: seen.message ?? 'Not run.' };
  };
}
