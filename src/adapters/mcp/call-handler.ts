import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode as McpErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { actionHash, newId, type ApprovalRequest } from '../../core/index.ts';
import type { AdapterCall, CallCheck } from '../core/index.ts';
import { hinted } from './hints.ts';
import { callSite, type CallExtra, type CallSite } from './principals.ts';
import type { GatewayContext, Route } from './types.ts';

const text = (s: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: s }], isError });

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
  const site = callSite(ctx, request.params, route.name, extra);
  const { threadId, base } = site;
  for (let k = 0; k < 1000; k++) {
    const call: AdapterCall = { threadId, toolCallId: k ? `${base}#${k}` : base, tool: route.name, args };
    const existing = await ctx.gate.decision(threadId, call.toolCallId);
    if (existing) {
      const req = existing.outcome.request;
      const fresh = req.resolvedAt === null || ctx.il.now() - req.resolvedAt < ctx.repeatWindowMs;
      if (existing.kind === 'wait') return answer(ctx, route, call, await hold(ctx, call, site.progress));
      if (!ctx.answered.has(req.id) && fresh) return answer(ctx, route, call, await ctx.gate.check(call));
      continue; // answered already: a repeat of an action that ran is a new action
    }
    return gateNew(ctx, server, route, call, site);
  }
  throw new McpError(McpErrorCode.InternalError, 'Too many repeats of this call.');
}

/**
 * A call with no request: `decision` just found none for its slot, so the policy's verdict (or the
 * tool's hints) is all there is to read. Block answers an error, run forwards, ask opens a request.
 */
async function gateNew(
  ctx: GatewayContext,
  server: Server,
  route: Route,
  call: AdapterCall,
  site: CallSite,
): Promise<CallToolResult> {
  const { gate, il, name } = ctx;
  const c = hinted(ctx.o.hints, route, await gate.verdict(call));
  if (c.kind === 'block') {
    await gate.recordBlock(call, c);
    return text(c.message, true);
  }
  if (c.kind === 'run') {
    // An automatic call is forwarded every time it is made, under a fresh key — unless the client
    // names it (`_meta.callId`): the same call id with the same arguments is the same call retried
    // (a client that crashed and tries again), and the ledger answers it with the recorded result.
    const key = site.base.startsWith('c:') ? `${site.base}:${actionHash(route.name, call.args)}` : newId('mcp');
    return forward(ctx, route, { ...call, toolCallId: key }, { ...c, key: `${site.threadId}:${key}` });
  }
  if (c.kind === 'ask') {
    const { requests } = await il.pause({
      // An integration's thread: no worker resumes it, and none may fail it (src/worker/resume.ts).
      thread: { id: site.threadId, agent: name, agentVersion: '1', metadata: { integration: 'mcp' } },
      items: [await gate.pauseItem(call, c)],
      proposer: `agent:${name}`,
    });
    // A rule of the client's own user: that user confirms, in the client, when it can ask them.
    if (requests[0]?.role === ctx.userRole && server.getClientCapabilities()?.elicitation) {
      await confirmByUser(ctx, server, requests[0], site.principal);
      return answer(ctx, route, call, await gate.check(call));
    }
    return answer(ctx, route, call, await hold(ctx, call, site.progress));
  }
  return answer(ctx, route, call, c);
}

/** Claim → run → outcome: forward the call upstream once under the ledger, with the arguments that run. */
async function forward(ctx: GatewayContext, route: Route, call: AdapterCall, c: CallCheck): Promise<CallToolResult> {
  const r = await ctx.gate.run<CallToolResult>(
    call,
    // The upstream server gets the ledger's key in `_meta`, so a payment API behind it can dedupe too.
    async (args, ledger) =>
      (await route.client.callTool({
        name: route.tool.name,
        arguments: args,
        _meta: { idempotencyKey: ledger.idempotencyKey },
      })) as CallToolResult,
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

/** The answer to a call whose request nobody decided yet: it has not run, and how to get its outcome. */
function pendingAnswer(req: ApprovalRequest): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: `This action awaits approval by a ${req.role} (request ${req.id}, ${req.reason}); it has not run. Call the tool again with the same arguments after the decision to get its outcome (the request expires ${new Date(req.expiresAt).toISOString()}).`,
      },
    ],
    structuredContent: {
      status: 'awaiting_approval',
      requestId: req.id,
      role: req.role,
      expiresAt: new Date(req.expiresAt).toISOString(),
    },
    isError: false,
  };
}

/** Wait up to `holdMs` for a decision on the call, sending progress when the client asked for it. */
async function hold(
  ctx: GatewayContext,
  call: AdapterCall,
  progress: (() => Promise<void>) | undefined,
): Promise<CallCheck> {
  const { gate, il } = ctx;
  const until = Date.now() + ctx.holdMs;
  let c = await gate.check(call);
  while (c.kind === 'wait' && Date.now() < until) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(1000, Math.max(0, until - Date.now())));
      const off = il.on((e) => {
        if (e.type === 'approval.decided' || e.type === 'approval.expired') done();
      });
      function done() {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
    await progress?.();
    c = await gate.check(call);
  }
  return c;
}

/** The call's answer by where its request stands; a decided outcome is answered once by this process. */
async function answer(ctx: GatewayContext, route: Route, call: AdapterCall, c: CallCheck): Promise<CallToolResult> {
  switch (c.kind) {
    case 'wait':
      return pendingAnswer(c.outcome.request);
    case 'approved':
      ctx.answered.add(c.outcome.request.id);
      return forward(ctx, route, call, c);
    case 'not_run':
      ctx.answered.add(c.outcome.request.id);
      return text(c.message, !c.answered);
    default:
      return text('Not run.', true);
  }
}

/**
 * Ask the client's own user to confirm (MCP elicitation) and record their answer as a decision of
 * the user role, like any other: accepted with the box ticked approves, anything else rejects.
 */
async function confirmByUser(
  ctx: GatewayContext,
  server: Server,
  req: ApprovalRequest,
  principal: string,
): Promise<void> {
  let approved = false;
  let why = 'declined by the user';
  try {
    const r = await server.elicitInput({
      mode: 'form',
      message: `Run ${req.tool} with ${JSON.stringify(req.args)}? (${req.reason})`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Run it', description: `Let ${req.tool} run once` } },
        required: ['confirm'],
      },
    });
    approved = r.action === 'accept' && r.content?.confirm === true;
    if (r.action === 'cancel') why = 'cancelled by the user';
  } catch (err) {
    why = `the user could not be asked: ${err instanceof Error ? err.message : String(err)}`;
  }
  const reviewer = { id: `${ctx.userRole}:${principal}`, roles: [ctx.userRole] };
  const guard = { expectedVersion: req.version, actionHash: req.actionHash };
  await ctx.il.decide(
    req.id,
    approved ? { type: 'approve', ...guard } : { type: 'reject', ...guard, message: why },
    reviewer,
  );
}
