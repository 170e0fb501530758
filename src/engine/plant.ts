import { randomBytes } from 'node:crypto';
import { newId, type ApprovalRequest } from '../core/index.ts';
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
      // A call id of the real call's form (its prefix, its length): not an Interlock id a reviewer
      // could tell apart from the model's.
      toolCallId: lookalikeCallId(real.toolCallId),
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

/** A random call id shaped like `id`: the same prefix (up to its last `_` or `-`) and length (12 random at least). */
function lookalikeCallId(id: string | null): string {
  if (!id) return newId<string>('call');
  const cut = Math.max(id.lastIndexOf('_'), id.lastIndexOf('-')) + 1;
  const alphabet = /^[0-9a-f]+$/.test(id.slice(cut))
    ? '0123456789abcdef'
    : 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  // Providers' ids carry 20+ random characters; a short one (a scripted model's) gets 12, so the
  // check's id never meets a real call's of the thread.
  const bytes = randomBytes(Math.max(12, id.length - cut));
  return id.slice(0, cut) + Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
