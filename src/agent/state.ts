import { SchemaVersionError, InterlockUsageError } from '../core/index.ts';
import type { ToolOutput } from './messages.ts';
import type { InterruptAnswer } from './tool.ts';

/** Schema version of the loop state stored in checkpoints. */
export const LOOP_STATE_VERSION = 1;
export const SUPPORTED_LOOP_STATE_VERSIONS: readonly number[] = [1];

/** What a waiting call or batch waits for. */
export type WaitKind = 'approval' | 'tool' | 'hook' | 'batch' | 'budget' | 'confidence' | 'agent' | 'node';

/** A pending question to a person, backed by an approval request. */
export interface Wait {
  kind: WaitKind;
  requestId: string;
  name: string;
  reason: string;
}

/** One tool call of the batch the model asked for. */
export interface PendingCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  status: 'todo' | 'waiting' | 'done';
  output?: ToolOutput;
  wait?: Wait;
  /** Answers to the tool's own `context.interrupt` calls, in order. */
  answers: InterruptAnswer[];
  /** A hook's interrupt was approved: do not ask the hook again. */
  hookCleared?: boolean;
  /** The policy gate's request that authorized this call (execute under its key). */
  authorizedBy?: string;
  /** A sub-agent call: the child thread it runs on (set before the child starts, so a resume continues it). */
  child?: string;
}

/** The loop's state between steps: everything needed to resume exactly. */
export interface LoopState {
  v: number;
  agentVersion: string;
  system: string;
  /** Model calls made in this thread. */
  iterations: number;
  usage: { inputTokens: number; outputTokens: number; toolCalls: number; cost: number };
  /** Budget extension granted by reviewers, as a multiple of the configured limit. */
  budgetGrants: number;
  /** The tool calls of the last model turn, until every one has a result. */
  batch: null | {
    calls: PendingCall[];
    wait?: Wait | undefined;
    checks?: Array<'confidence' | 'hook'>;
    /**
     * The model call that proposed the batch (the iteration count then): part of an automatic call's
     * key, so a call id a model reuses in a later turn is a new call, not a replay of the earlier one.
     * Absent in checkpoints written before it: their keys stay as they were.
     */
    turn?: number;
  };
  /** A loop-control question (budget) waiting for a person. */
  control: null | Wait;
  appState: Record<string, unknown>;
  /** The agent the conversation was handed off to (its name); absent while the thread's own agent speaks. */
  active?: string;
  /** A handoff made in the current batch, applied once every call of the batch has its result. */
  handoffTo?: string;
  /**
   * Trust grants in this thread: `none` while no decision the run followed granted any (a grant
   * is made only by approving one of the thread's own requests, and its run follows that decision
   * before it gates a call, unless the approval still waits in the batch: then the gate reads), so
   * the gate need not read them; `some` once one did. Absent in checkpoints written before it was
   * kept: the gate reads the grants. (A build from before, resuming a thread, keeps `none` through
   * a grant it follows; the thread's later calls then ask a person where the grant would have let
   * them run.)
   */
  trust?: 'none' | 'some';
}

/** State of a new thread. */
export function initialState(agentVersion: string, system: string): LoopState {
  return {
    v: LOOP_STATE_VERSION,
    agentVersion,
    system,
    iterations: 0,
    usage: { inputTokens: 0, outputTokens: 0, toolCalls: 0, cost: 0 },
    budgetGrants: 0,
    batch: null,
    control: null,
    appState: {},
    trust: 'none',
  };
}

/**
 * Read a checkpoint's state. Unknown schema versions are refused. A checkpoint
 * written by another agent version resumes only if `compatible` accepts that
 * version (default: the same major version, `"2.x"` ↔ `"2.y"`); the system
 * prompt of the checkpoint is kept, so a resumed thread sees what it saw.
 */
export function readState(
  raw: Record<string, unknown>,
  agentVersion: string,
  compatible: (from: string, to: string) => boolean,
  threadId: string,
): LoopState {
  if (!SUPPORTED_LOOP_STATE_VERSIONS.includes(raw.v as number))
    throw new SchemaVersionError('checkpoint', raw.v, SUPPORTED_LOOP_STATE_VERSIONS);
  const state = raw as unknown as LoopState;
  if (state.agentVersion !== agentVersion && !compatible(state.agentVersion, agentVersion)) {
    throw new InterlockUsageError(
      'incompatible_agent_version',
      `Thread ${threadId} was checkpointed by agent version ${state.agentVersion}; this is ${agentVersion}. Resume it with a compatible build, or pass "compatibleVersions" to accept it.`,
      { details: { threadId, from: state.agentVersion, to: agentVersion } },
    );
  }
  return structuredClone(state);
}

/** Default compatibility: same major version (the part before the first dot). */
export function sameMajor(from: string, to: string): boolean {
  return from.split('.')[0] === to.split('.')[0];
}
