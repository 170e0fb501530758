import { ForbiddenError, NotFoundError, type ApprovalRequest } from '../core/index.ts';
import { auditEvent } from '../engine/index.ts';
import type { ThreadRow } from '../store/types.ts';
import { canSeeRole, type Principal } from './auth.ts';
import type { RouteDeps } from './types.ts';

/**
 * Read access: operators see everything; other reviewers see the requests of
 * their roles, and the threads that have such a request. A request of another
 * role is a 403 rather than a 404: its id is not a secret, its content is.
 */

/** The request, if `p` may see it: 404 when there is none, 403 when it is for a role `p` lacks. */
export async function visibleRequest(deps: RouteDeps, p: Principal, id: string): Promise<ApprovalRequest> {
  const req = await deps.interlock.getRequestOrThrow(id);
  if (!canSeeRole(p, req.role)) {
    throw new ForbiddenError(
      'forbidden_role',
      `Approval request ${id} is for role "${req.role}", which you do not have.`,
      { requestId: id, requiredRole: req.role },
    );
  }
  return req;
}

/** The thread, if `p` may see it: 404 when there is none, 403 when none of its requests is for `p`'s roles. */
export async function visibleThread(deps: RouteDeps, p: Principal, id: string): Promise<ThreadRow> {
  const thread = await deps.interlock.threads.getThread(id);
  if (!thread) throw new NotFoundError('thread', id);
  if (!p.operator) {
    const mine = await deps.interlock.listRequests({ threadId: id, roles: p.roles, limit: 1 });
    if (mine.items.length === 0 && !(await reviewsInTree(deps, p, thread))) {
      throw new ForbiddenError(
        'forbidden_role',
        `Thread ${id} has no approval request for your roles; only operators and its reviewers may read it.`,
        { threadId: id },
      );
    }
  }
  return thread;
}

/** Threads a tree of agents holds at most, as far as reading access goes (a bound on the walk). */
const TREE_LIMIT = 50;

/**
 * Does `p` review some request in the thread's tree of agents (its root, and the sub-agents' and
 * graph nodes' threads below it)? A reviewer of a sub-agent's request may read the conversation
 * that led to it, and the other way round. Children are found by the `delegated` audit events.
 */
async function reviewsInTree(deps: RouteDeps, p: Principal, thread: ThreadRow): Promise<boolean> {
  const root = typeof thread.metadata.rootThreadId === 'string' ? thread.metadata.rootThreadId : thread.id;
  const queue = [root];
  const seen = new Set<string>();
  while (queue.length && seen.size < TREE_LIMIT) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    if (
      id !== thread.id &&
      (await deps.interlock.listRequests({ threadId: id, roles: p.roles, limit: 1 })).items.length
    )
      return true;
    for (const e of await deps.interlock.audit.listAudit({ threadId: id, limit: 2000 }))
      if (e.type === 'delegated' && typeof e.payload.childThreadId === 'string') queue.push(e.payload.childThreadId);
  }
  return false;
}

/**
 * Record that `p` read a thread's personal data unmasked (`raw_viewed`), before
 * the answer leaves: an unaudited raw read never happens.
 */
export async function auditRawView(
  deps: RouteDeps,
  p: Principal,
  threadId: string,
  surface: 'api' | 'web',
): Promise<void> {
  const { interlock } = deps;
  await interlock.audit.record([
    auditEvent('raw_viewed', `reviewer:${p.id}`, { surface, what: 'thread messages' }, { threadId }),
  ]);
}
