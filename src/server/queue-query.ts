import type { Context } from 'hono';
import type { z } from 'zod';
import type { ApprovalRequest } from '../core/index.ts';
import { ValidationError } from '../core/index.ts';
import type { RequestQuery } from '../store/types.ts';
import { canSeeRole, type Principal } from './auth.ts';
import { parseOrThrow } from './errors.ts';
import { argFilters, countQuery, type listQuery } from './schemas.ts';
import type { RouteDeps } from './types.ts';
import { decisionsFor, requestSummary, reviewerNames } from './views.ts';

/**
 * The queue listing's query and items: filters (text, argument values, tier, ids) read from the
 * query string into the store's {@link RequestQuery}, and each listed request with the decisions
 * the viewer may take on it, so a page can mark what it cannot decide without opening each.
 */

/**
 * The query string of the queue listing or count: `schema`'s fields, plus `arg.<name>=<value>`
 * argument filters read apart (a strict schema cannot name them). Bad values are a 400 `invalid_input`.
 */
export function readQueueQuery<S extends typeof countQuery | typeof listQuery>(
  c: Context,
  schema: S,
): z.infer<S> & { args: Record<string, string> } {
  const rest: Record<string, string> = {};
  const args: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.req.query())) {
    if (k.startsWith('arg.')) args[k.slice(4)] = v;
    else rest[k] = v;
  }
  const q = parseOrThrow(schema, rest, 'query string', 'query') as z.infer<S>;
  return { ...q, args: parseOrThrow(argFilters, args, 'query string', 'query.arg') };
}

/**
 * The store query of a queue listing or count: a role filter narrows to what `p` may see; no
 * filter, to all of their roles.
 */
export function queueQuery(
  p: Principal,
  q: z.infer<typeof listQuery> & { args: Record<string, string> },
): RequestQuery {
  let roles: readonly string[] | undefined;
  if (q.role !== undefined) roles = canSeeRole(p, q.role) ? [q.role] : [];
  else roles = p.operator ? undefined : p.roles;
  const ids = q.ids?.split(',');
  if (ids && new Set(ids).size !== ids.length)
    throw new ValidationError('The ids list names a request twice; name each once.', [
      { path: 'query.ids', message: 'duplicate id' },
    ]);
  return {
    ...(q.status && { status: q.status }),
    ...(roles && { roles }),
    ...(q.tool && { tool: q.tool }),
    ...(q.tier && { tier: q.tier }),
    ...(q.threadId && { threadId: q.threadId }),
    ...(q.q && { text: q.q }),
    ...(Object.keys(q.args).length > 0 && { args: q.args }),
    ...(ids && { ids }),
    ...(q.order && { order: q.order }),
    ...(q.limit !== undefined && { limit: q.limit }),
    ...(q.cursor && { cursor: q.cursor }),
  };
}

/**
 * A page of the queue as the API answers it: each request with `allowedDecisions` for `p` (the
 * core's one eligibility rule, as on the review packet), and the names of reviewers the page
 * mentions (who proposed an edit, who decided), by id.
 */
export async function queueItems(deps: RouteDeps, p: Principal, items: readonly ApprovalRequest[]) {
  const { interlock } = deps;
  const now = interlock.now();
  // Only a request with approvals already counted can hold this reviewer's vote: the others need no lookup.
  const voters = await Promise.all(
    items.map((r) => (r.approvalsReceived > 0 ? interlock.requests.listVoters(r.id) : Promise.resolve([]))),
  );
  const reviewers = items.length > 0 ? await interlock.reviewers.listReviewers() : [];
  const names: Record<string, string> = {};
  items.forEach((r, i) => Object.assign(names, reviewerNames(r, voters[i]!, reviewers)));
  return {
    items: items.map((r, i) => ({ ...requestSummary(r), allowedDecisions: decisionsFor(r, p, voters[i]!, now) })),
    names,
  };
}
