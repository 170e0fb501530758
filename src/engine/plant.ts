import { randomBytes } from 'node:crypto';
import type { ApprovalRequest } from '../core/index.ts';
import type { EngineContext } from './context.ts';
import { newRequest, type PauseItem } from './new-request.ts';

/**
 * A planted check beside a real request, when its rule plants them and the draw says so: the same
 * tool, tier, role, quorum and expiry, on the same thread, with the template's arguments. A template
 * that fails places nothing; the real pause goes on.
 */
export function plantFor(ctx: EngineContext, item: PauseItem, real: ApprovalRequest): ApprovalRequest | undefined {
  const spec = ctx.policy.plantFor(item.call.tool, item.verdict.ruleId);
  if (!spec || ctx.random() >= spec.rate) return undefined;
  let made: ReturnType<typeof spec.template>;
  try {
    made = spec.template({ args: item.call.args, app: item.app ?? {} });
  } catch (err) {
    process.emitWarning(
      `Interlock: the planted-check template of ${item.call.tool} rule "${item.verdict.ruleId}" failed (${err instanceof Error ? err.message : String(err)}); no check was placed.`,
    );
    return undefined;
  }
  const req = newRequest(ctx, {
    threadId: real.threadId,
    checkpointId: real.checkpointId,
    proposer: real.proposer,
    item: {
      call: { tool: item.call.tool, args: made.args },
      // The real call's own id: the check sits under the model's call in the conversation, as a real
      // request does, with nothing in its id to tell it apart. The engine never takes a planted check
      // for a call's request (listRequestsForCall leaves them out).
      ...(real.toolCallId ? { toolCallId: real.toolCallId } : {}),
      // Its id shares the real one's time and counter, with its own random tail: it sorts before or
      // after the real request by chance, not always right after it.
      requestId: siblingId(real.id),
      verdict: item.verdict,
      evidence: made.evidence ?? item.evidence ?? {},
      ...(item.app ? { app: item.app } : {}),
    },
    now: real.createdAt,
  });
  req.planted = true;
  return req;
}

/** An id with `id`'s prefix, time and counter (see `newId`) and a random tail of the same alphabet. */
function siblingId(id: string): string {
  const at = id.indexOf('_') + 1;
  const keep = id.slice(0, at + 14);
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  return keep + Array.from(randomBytes(id.length - keep.length), (b) => alphabet[b % 32]).join('');
}
