import type { ApprovalRequest } from '../core/index.ts';
import type { ThreadClaim } from '../store/types.ts';
import { delegationOf } from './delegation.ts';
import { SUPPORTED_LOOP_STATE_VERSIONS, type LoopState } from './state.ts';
import type { AgentRuntime } from './types.ts';

/**
 * Whether the run that follows an in-process answer will run the answered request's action: the
 * decision may then claim the execution in its own transaction (one commit instead of two). Read
 * from the checkpoint the decision's transaction loaded, before the run exists: the thread is this
 * agent's, its loop state one this build reads, no question of the batch or the loop comes first,
 * and the batch's first call not done waits on exactly this request, for a tool (not a hand-off or
 * sub-agent) the speaking agent has. A wrong guess costs the claim being given back, never a wrong run.
 */
export function runsApprovedCall(
  rt: AgentRuntime,
  compatible: (from: string, to: string) => boolean,
  req: ApprovalRequest,
  claim: ThreadClaim,
): boolean {
  const raw = claim.latest?.checkpoint?.state;
  if (!raw || claim.thread.agent !== rt.opts.name || !SUPPORTED_LOOP_STATE_VERSIONS.includes(raw.v as number))
    return false;
  const state = raw as unknown as LoopState;
  if (state.agentVersion !== rt.opts.version && !compatible(state.agentVersion, rt.opts.version)) return false;
  const batch = state.batch;
  if (state.control || !batch || batch.wait || batch.checks?.length) return false;
  // The first call of the batch not done yet: one the run reaches before this call could run a tool or
  // a sub-agent whose progress would not be checkpointed with this claim.
  const call = batch.calls.find((c) => c.status !== 'done');
  if (call?.status !== 'waiting' || call.wait?.kind !== 'approval' || call.wait.requestId !== req.id) return false;
  const speaking = state.active ? rt.peer(state.active) : rt;
  const tool = call && speaking?.tools.get(call.toolName);
  return tool !== undefined && !delegationOf(tool);
}
