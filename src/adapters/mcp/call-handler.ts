import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode as McpErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { actionHash, newId, type ApprovalRequest } from '../../core/index.ts';
import { auditEvent } from '../../engine/index.ts';
import type { AdapterCall, CallCheck } from '../core/index.ts';
import { confirmByUser } from './confirm.ts';
import { hinted } from './hints.ts';
import { callSite, type CallExtra, type CallSite } from './principals.ts';
import { notRunAnswer, pendingAnswer, text } from './answers.ts';
import type { GatewayContext, Route } from './types.ts';

/**
 * One `tools/call` through the gateway. The call's slot is the first id of this call whose outcome
 * was not answered yet: a pending request is held for, a decided one not answered yet is answered,
 * and a free slot is gated as a new call.
 */
export async function handleCall(
  ctx: GatewayContext,
  server: Server,
  request: CallToolRequest,
  extra: CallExtra,
): Promise<CallToolResult> {
  const route = ctx.routes.get(request.params.name);
  if (!route)
    throw new McpError(
      McpErrorCode.InvalidParams,
      `Unknown tool "${request.params.name}"; tools/list names the tools this gateway serves.`,
    );
  const args = request.params.arguments ?? {};
  const site = callSite(ctx, server, request.params, route.name, extra);
  const { threadId, base } = site;
  // The policy first: a call it runs by itself has nothing to collect, so it skips the slot lookup
  // (one round trip on PostgreSQL) — unless a trust grant lowered it: the repeat of the granting
  // request's own call must still collect that approval rather than run beside it.
  const first: AdapterCall = { threadId, toolCallId: base, tool: route.name, args, trustSince: site.trustSince };
  const verdict = hinted(ctx.il, ctx.o.hints, route, await ctx.gate.verdict(first));
  if (verdict.kind === 'run' && !verdict.verdict.trustedBy) return runAuto(ctx, route, first, site, verdict, extra);
  for (let k = 0; k < 1000; k++) {
    const call: AdapterCall = {
      threadId,
      toolCallId: k ? `${base}#${k}` : base,
      tool: route.name,
      args,
      trustSince: site.trustSince,
    };
    const existing = await ctx.gate.decision(threadId, call.toolCallId);
    if (existing) {
      const req = existing.outcome.request;
      if (existing.kind === 'wait') return answer(ctx, route, call, await hold(ctx, call, site, extra), extra);
      if (await collectable(ctx, req)) return answer(ctx, route, call, await ctx.gate.check(call), extra);
      continue; // answered already, or too late to collect: a repeat of it is a new action
    }
    return gateNew(ctx, server, route, call, site, extra, verdict);
  }
  throw new McpError(McpErrorCode.InternalError, 'Too many repeats of this call.');
}

/**
 * Whether a decided request's outcome is still for a repeat of its call to collect: not answered to a
 * client yet (by this process, or by any — the audit says), and within the repeat window.
 */
async function collectable(ctx: GatewayContext, req: ApprovalRequest): Promise<boolean> {
  if (ctx.answered.has(req.id)) return false;
  const deadline =
    ctx.repeatWindowMs === undefined ? req.expiresAt : (req.resolvedAt ?? ctx.il.now()) + ctx.repeatWindowMs;
  if (ctx.il.now() > deadline) return false;
  const events = await ctx.il.audit.listAudit({ requestId: req.id });
  if (events.some((e) => e.type === 'outcome_delivered')) {
    ctx.answered.add(req.id);
    return false;
  }
  return true;
}

/**
 * A call with no request: `decision` just found none for its slot, so the policy's verdict (or the
 * tool's hints), read when the call came in, is all there is. Block answers an error, run forwards,
 * ask opens a request.
 */
async function gateNew(
  ctx: GatewayContext,
  server: Server,
  route: Route,
  call: AdapterCall,
  site: CallSite,
  extra: CallExtra,
  c: Extract<CallCheck, { kind: 'run' | 'block' | 'ask' }>,
): Promise<CallToolResult> {
  const { gate, il, name } = ctx;
  if (c.kind === 'block') {
    await gate.recordBlock(call, c);
    return text(c.message, true);
  }
  if (c.kind === 'run') return runAuto(ctx, route, call, site, c, extra);
  if (c.kind === 'ask') {
    const { requests } = await il.pause({
      // An integration's thread: no worker resumes it, and none may fail it (src/worker/resume.ts).
      thread: { id: site.threadId, agent: name, agentVersion: '1', metadata: { integration: 'mcp' } },
      items: [await gate.pauseItem(call, c)],
      proposer: `agent:${name}`,
    });
    // A rule of the client's own user: that user confirms, in the client, when it can ask them.
    if (requests[0]?.role === ctx.userRole && server.getClientCapabilities()?.elicitation) {
      await confirmByUser(ctx, server, requests[0], site.principal, extra);
      return answer(ctx, route, call, await gate.check(call), extra);
    }
    return answer(ctx, route, call, await hold(ctx, call, site, extra), extra);
  }
  return answer(ctx, route, call, c, extra);
}

/**
 * An automatic call is forwarded every time it is made, under a fresh key — unless the client names it
 * (`_meta.callId`): the same call id with the same arguments is the same call retried (a client that
 * crashed and tries again), and the ledger answers it with the recorded result. A fresh key is nobody's
 * to repeat: no claim before the forward, one grouped record after it.
 */
function runAuto(
  ctx: GatewayContext,
  route: Route,
  call: AdapterCall,
  site: CallSite,
  c: Extract<CallCheck, { kind: 'run' }>,
  extra: CallExtra,
): Promise<CallToolResult> {
  const named = site.base.startsWith('c:');
  const key = named ? `${site.base}:${actionHash(route.name, call.args)}` : newId('mcp');
  const run = { ...c, key: `${site.threadId}:${key}`, ...(named ? {} : { fresh: true }) };
  return forward(ctx, route, { ...call, toolCallId: key }, run, extra);
}

/** Claim → run → outcome: forward the call upstream once under the ledger, with the arguments that run. */
async function forward(
  ctx: GatewayContext,
  route: Route,
  call: AdapterCall,
  c: CallCheck,
  extra: CallExtra,
): Promise<CallToolResult> {
  const r = await ctx.gate.run<CallToolResult>(
    call,
    // The upstream server gets the ledger's key in `_meta`, so a payment API behind it can dedupe too;
    // the client's cancellation reaches it (its progress comes back through the route's relayed client).
    async (args, ledger) =>
      (await route.client.callTool(
        { name: route.tool.name, arguments: args, _meta: { idempotencyKey: ledger.idempotencyKey } },
        undefined,
        { signal: extra.signal },
      )) as CallToolResult,
    c,
  );
  if (r.status === 'refused') return text(r.message, true);
  if (r.status === 'failed') return text(`The upstream tool failed: ${r.error}`, true);
  return r.edited
    ? {
        ...r.result,
        content: [
          { type: 'text', text: `A reviewer changed the arguments before this ran: ${JSON.stringify(r.args)}.` },
          ...r.result.content,
        ],
      }
    : r.result;
}

/**
 * Wait up to `holdMs` for a decision on the call, sending progress when the client asked for it. A
 * decision made in this process wakes it at once; one made in another (the service, a second gateway)
 * is seen within a second. The client's cancellation ends the wait.
 */
async function hold(ctx: GatewayContext, call: AdapterCall, site: CallSite, extra: CallExtra): Promise<CallCheck> {
  const { gate, il } = ctx;
  // An interval, so a monotonic clock: a wall clock stepped back must not stretch the hold.
  const until = performance.now() + ctx.holdMs;
  let c = await gate.check(call);
  while (c.kind === 'wait' && performance.now() < until && !extra.signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(1000, Math.max(0, until - performance.now())));
      const off = il.on((e) => {
        if (e.type === 'approval.decided' || e.type === 'approval.expired') done();
      });
      extra.signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        off();
        extra.signal.removeEventListener('abort', done);
        resolve();
      }
    });
    if (extra.signal.aborted) break;
    await site.progress?.();
    c = await gate.check(call);
  }
  return c;
}

/**
 * The call's answer by where its request stands. A decided outcome is answered once: it counts as
 * delivered when the answer goes to a client that is still waiting for it (not cancelled, still
 * connected), recorded in the audit for every process. A cancelled call is not run: its approval stays
 * for a later repeat to collect.
 */
async function answer(
  ctx: GatewayContext,
  route: Route,
  call: AdapterCall,
  c: CallCheck,
  extra: CallExtra,
): Promise<CallToolResult> {
  const outputSchema = route.tool.outputSchema !== undefined;
  if (c.kind === 'wait') return pendingAnswer(c.outcome.request, outputSchema);
  if (extra.signal.aborted) return text('The call was cancelled; nothing ran.', true);
  if (c.kind === 'approved') {
    const result = await forward(ctx, route, call, c, extra);
    await delivered(ctx, c.outcome.request, extra);
    return result;
  }
  if (c.kind === 'not_run') {
    await delivered(ctx, c.outcome.request, extra);
    return notRunAnswer(c.message, c.answered, outputSchema);
  }
  return text('Not run.', true);
}

/** Record that a decided call's outcome reached its client, unless the client stopped waiting. */
async function delivered(ctx: GatewayContext, req: ApprovalRequest, extra: CallExtra): Promise<void> {
  if (extra.signal.aborted || !req.id) return;
  ctx.answered.add(req.id);
  await ctx.il.audit.record([
    auditEvent('outcome_delivered', `agent:${ctx.name}`, extra.sessionId ? { session: extra.sessionId } : {}, {
      threadId: req.threadId,
      requestId: req.id,
    }),
  ]);
}
