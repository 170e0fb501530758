import { actionHash, type ApprovalRequest, type TimeoutDecision } from '../core/index.ts';

/**
 * Where a gated call stands, read from its approval request after following
 * supersessions (an edit that needed a new request, a timeout that escalated)
 * to the request that now stands. Native runs and framework adapters read
 * decisions through this one function, so "what a decision means for the call"
 * lives in one place.
 */
export type CallOutcome =
  | { state: 'pending'; request: ApprovalRequest }
  /**
   * Authorized (or already executing / run): `args` are what was authorized, edits included; `edited` is
   * set when a reviewer changed them anywhere on the way (in place, or by an edit that raised the tier
   * to a new request); `askedHash` is the action hash of the request first opened for the call — the
   * call the framework still holds must match it, whatever the edits.
   */
  | {
      state: 'approved';
      request: ApprovalRequest;
      args: Record<string, unknown>;
      by: string;
      edited: boolean;
      askedHash: string;
    }
  | { state: 'rejected'; request: ApprovalRequest; message: string | undefined; by: string }
  | { state: 'responded'; request: ApprovalRequest; message: string; by: string }
  | { state: 'expired'; request: ApprovalRequest; applied: TimeoutDecision }
  | { state: 'cancelled'; request: ApprovalRequest };

/** How many hand-overs are followed before the chain is taken as broken (cancelled). */
const MAX_HOPS = 20;

/**
 * Follow a request to the one that stands and say what it means for the call.
 * `read` returns a request by id (the store's or a cache's); a request that is
 * gone reads as cancelled. `onRead` sees every request read on the way.
 */
export async function followRequest(
  read: (id: string) => Promise<ApprovalRequest | undefined>,
  requestId: string,
  onRead?: (req: ApprovalRequest) => void,
): Promise<CallOutcome> {
  let id = requestId;
  let asked: ApprovalRequest | undefined;
  let viaEdit = false;
  for (let hops = 0; hops < MAX_HOPS; hops++) {
    const req = await read(id);
    if (!req) return { state: 'cancelled', request: { id } as ApprovalRequest };
    onRead?.(req);
    asked ??= req;
    if (req.status === 'superseded' && req.supersededBy) {
      // An edit that needed a new request still authorizes the reviewer's arguments for the first call.
      if (req.resolution?.type === 'edit') viaEdit = true;
      id = req.supersededBy;
      continue;
    }
    const o = outcomeOf(req);
    if (o.state !== 'approved' || asked === req) return o;
    return { ...o, edited: o.edited || viaEdit, askedHash: asked.actionHash };
  }
  return { state: 'cancelled', request: { id } as ApprovalRequest };
}

/**
 * The action hash of the call a request was opened for: an edit in place replaced the request's
 * hash with the edited arguments', but the call the framework holds has the original ones.
 */
export function askedHash(req: ApprovalRequest): string {
  return req.status !== 'superseded' && req.resolution?.type === 'edit' && req.resolution.originalArgs
    ? actionHash(req.tool, req.resolution.originalArgs)
    : req.actionHash;
}

/** What a request that is not superseded means for its call. */
export function outcomeOf(req: ApprovalRequest): CallOutcome {
  // A planted check is never an action to run, whatever a reviewer or its timeout said.
  if (req.planted) return { state: 'cancelled', request: req };
  const by = req.resolution?.by ?? 'unknown';
  switch (req.status) {
    case 'pending':
      return { state: 'pending', request: req };
    case 'authorized':
    case 'executing':
    case 'executed':
    case 'failed':
      return {
        state: 'approved',
        request: req,
        args: req.args,
        by,
        edited: req.resolution?.type === 'edit',
        askedHash: askedHash(req),
      };
    case 'rejected':
      return { state: 'rejected', request: req, message: req.resolution?.message, by };
    case 'responded':
      return { state: 'responded', request: req, message: req.resolution?.message ?? '', by };
    case 'expired':
      return { state: 'expired', request: req, applied: req.resolution?.applied ?? req.onTimeout };
    default:
      return { state: 'cancelled', request: req };
  }
}
