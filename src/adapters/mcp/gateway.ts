import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { actionHash, ConfigError, newId, type ApprovalRequest } from '../../core/index.ts';
import type { GateVerdict, Interlock, ToolSchemaEntry } from '../../engine/index.ts';
import { createCallGate, type AdapterCall, type CallCheck, type CallGateOptions } from '../core/index.ts';

/** Options of {@link createMcpGateway}. */
export interface McpGatewayOptions extends Omit<CallGateOptions, 'interlock' | 'proposer'> {
  interlock: Interlock;
  /** Connected MCP clients of the upstream servers, by a short name (used to namespace clashing tools). */
  upstreams: Record<string, Client>;
  /** Threads and audit name the gateway by this (default `mcp-gateway`). */
  name?: string;
  /** Who is calling (the MCP client's user): requests of different principals are apart (default `local`). */
  principal?: (extra: { authInfo?: { clientId?: string } }) => string;
  /**
   * How long a gated call is held open waiting for a decision before the gateway answers that it awaits
   * approval (default 20 000 ms; keep it under the client's request timeout, 60 s by default).
   */
  holdMs?: number;
  /**
   * Verdicts for upstream tools the policy has no rules for, from the tool's own annotations: a
   * `readOnlyHint` tool gets `readOnly`, any other `other` (with `role` for a tier that pauses). Without
   * this option such tools are blocked: nothing without a verdict runs. Rules always win over hints.
   */
  hints?: {
    readOnly?: 'auto' | 'notify' | 'approve' | 'block';
    other?: 'auto' | 'notify' | 'approve' | 'block';
    role?: string;
  };
  /**
   * The role of the MCP client's own user (default `mcp-user`). A rule whose role is this one may be
   * confirmed by that user through MCP elicitation, when the client supports it; it never satisfies a
   * rule of any other role (those need another person).
   */
  userRole?: string;
  /**
   * How long a decided outcome is answered to a repeat of the same call after a gateway restart (its
   * answered-once memory is per process), in ms (default 10 minutes).
   */
  repeatWindowMs?: number;
}

type Route = { upstream: string; client: Client; tool: McpTool; name: string };

const text = (s: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: s }], isError });

/**
 * An MCP server that proxies upstream MCP servers' tools through Interlock. Every `tools/call` is gated
 * by the policy (tool names as the gateway lists them): `auto`/`notify` forward, `block` answers a tool
 * error with the rule's reason, `approve`/`escalate` open a durable request and hold the call briefly;
 * if nobody decided by then, the answer says it awaits approval, and the client's repeat of the same
 * call (same principal, tool and arguments, or the same `_meta.callId`) gets the decided outcome. An
 * approved forward is claimed in the ledger under the request's key, so it reaches upstream once.
 * Connect the returned server to any transport (stdio, Streamable HTTP, in-memory).
 */
export async function createMcpGateway(
  o: McpGatewayOptions,
): Promise<{ server: Server; tools: McpTool[]; newServer: () => Server }> {
  if (!o?.interlock) throw new ConfigError('createMcpGateway needs { interlock, upstreams }.');
  if (!o.upstreams || Object.keys(o.upstreams).length === 0)
    throw new ConfigError('createMcpGateway needs at least one upstream: { upstreams: { name: client } }.');
  const il = o.interlock;
  const name = o.name ?? 'mcp-gateway';
  const holdMs = o.holdMs ?? 20_000;
  const repeatWindowMs = o.repeatWindowMs ?? 10 * 60_000;
  const userRole = o.userRole ?? 'mcp-user';
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });

  // The tools, namespaced `<upstream>__<tool>` where two upstreams share a name.
  const listed = await Promise.all(
    Object.entries(o.upstreams).map(async ([upstream, client]) => ({
      upstream,
      client,
      tools: (await client.listTools()).tools,
    })),
  );
  const count = new Map<string, number>();
  for (const u of listed) for (const t of u.tools) count.set(t.name, (count.get(t.name) ?? 0) + 1);
  const routes = new Map<string, Route>();
  for (const u of listed)
    for (const t of u.tools) {
      const exposed = (count.get(t.name) ?? 0) > 1 ? `${u.upstream}__${t.name}` : t.name;
      routes.set(exposed, { upstream: u.upstream, client: u.client, tool: t, name: exposed });
    }
  const tools = [...routes.values()].map((r) => ({ ...r.tool, name: r.name }));
  // Reviewers' edits are validated against the upstream tool's own JSON Schema.
  const schemas: Record<string, ToolSchemaEntry> = {};
  for (const r of routes.values()) {
    try {
      schemas[r.name] = {
        schema: z.fromJSONSchema(
          r.tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0],
        ) as ToolSchemaEntry['schema'],
        ...(r.tool.description ? { description: r.tool.description } : {}),
      };
    } catch {
      // A schema zod cannot read: the tool can be approved, rejected or answered, not edited.
    }
  }
  il.registerTools(schemas);

  /** Outcomes already answered by this process (a repeat after that is a new call). */
  const answered = new Set<string>();

  async function forward(route: Route, call: AdapterCall, c: CallCheck): Promise<CallToolResult> {
    const r = await gate.run<CallToolResult>(
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
  async function hold(call: AdapterCall, progress: (() => Promise<void>) | undefined): Promise<CallCheck> {
    const until = Date.now() + holdMs;
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

  async function answer(route: Route, call: AdapterCall, c: CallCheck): Promise<CallToolResult> {
    switch (c.kind) {
      case 'wait':
        return pendingAnswer(c.outcome.request);
      case 'approved':
        answered.add(c.outcome.request.id);
        return forward(route, call, c);
      case 'not_run':
        answered.add(c.outcome.request.id);
        return text(c.message, !c.answered);
      default:
        return text('Not run.', true);
    }
  }

  /** A tool the policy does not know gets its verdict from its annotations, when `hints` says how. */
  function hinted(route: Route, c: CallCheck): CallCheck {
    if (c.kind !== 'block' || c.verdict.ruleId !== 'no-policy' || !o.hints) return c;
    const readOnly = route.tool.annotations?.readOnlyHint === true;
    const tier = (readOnly ? o.hints.readOnly : o.hints.other) ?? 'block';
    const hint = readOnly
      ? 'readOnlyHint'
      : route.tool.annotations?.destructiveHint
        ? 'destructiveHint'
        : 'no read-only hint';
    const verdict: GateVerdict = {
      ...c.verdict,
      tier,
      ruleId: `hint:${readOnly ? 'read-only' : 'other'}`,
      reason: `no rule for ${route.name}; the upstream marks it ${hint}`,
      role: tier === 'approve' ? (o.hints.role ?? 'supervisor') : null,
      approvalsRequired: tier === 'approve' ? 1 : 0,
      trustable: false,
      matched: [],
    };
    if (tier === 'block')
      return { kind: 'block', verdict, message: `Blocked by policy: ${verdict.reason}. Do not retry this action.` };
    return tier === 'approve' ? { kind: 'ask', verdict } : { kind: 'run', verdict };
  }

  /**
   * Ask the client's own user to confirm (MCP elicitation) and record their answer as a decision of
   * the user role, like any other: accepted with the box ticked approves, anything else rejects.
   */
  async function confirmByUser(server: Server, req: ApprovalRequest, principal: string): Promise<void> {
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
    const reviewer = { id: `${userRole}:${principal}`, roles: [userRole] };
    const guard = { expectedVersion: req.version, actionHash: req.actionHash };
    await il.decide(
      req.id,
      approved ? { type: 'approve', ...guard } : { type: 'reject', ...guard, message: why },
      reviewer,
    );
  }

  /** A protocol server over this gateway (one per transport: stateless HTTP makes one per request). */
  function newServer(): Server {
    const server = new Server({ name: 'interlock-mcp-gateway', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const route = routes.get(request.params.name);
      if (!route)
        throw new McpError(
          McpErrorCode.InvalidParams,
          `Unknown tool "${request.params.name}"; tools/list names the tools this gateway serves.`,
        );
      const args = request.params.arguments ?? {};
      const principal = o.principal?.(extra) ?? 'local';
      const threadId = `mcp:${name}:${principal}`;
      const meta = request.params._meta as { callId?: unknown; progressToken?: string | number } | undefined;
      const base =
        typeof meta?.callId === 'string' && meta.callId ? `c:${meta.callId}` : `h:${actionHash(route.name, args)}`;
      const progressToken = meta?.progressToken;
      let ticks = 0;
      const progress =
        progressToken === undefined
          ? undefined
          : () =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken, progress: ++ticks, message: 'waiting for a reviewer' },
              });
      // The call's slot: the first id of this call whose outcome was not answered yet.
      for (let k = 0; k < 1000; k++) {
        const call: AdapterCall = { threadId, toolCallId: k ? `${base}#${k}` : base, tool: route.name, args };
        const existing = await gate.decision(threadId, call.toolCallId);
        if (existing) {
          const req = existing.outcome.request;
          const fresh = req.resolvedAt === null || il.now() - req.resolvedAt < repeatWindowMs;
          if (existing.kind === 'wait') return answer(route, call, await hold(call, progress));
          if (!answered.has(req.id) && fresh) return answer(route, call, await gate.check(call));
          continue; // answered already: a repeat of an action that ran is a new action
        }
        // `decision` just found no request for this slot: the policy's verdict is all there is to read.
        const c = hinted(route, await gate.verdict(call));
        if (c.kind === 'block') {
          await gate.recordBlock(call, c);
          return text(c.message, true);
        }
        if (c.kind === 'run') {
          // An automatic call is forwarded every time it is made, under a fresh key — unless the client
          // names it (`_meta.callId`): the same call id with the same arguments is the same call retried
          // (a client that crashed and tries again), and the ledger answers it with the recorded result.
          const key = base.startsWith('c:') ? `${base}:${actionHash(route.name, args)}` : newId('mcp');
          return forward(route, { ...call, toolCallId: key }, { ...c, key: `${threadId}:${key}` });
        }
        if (c.kind === 'ask') {
          const { requests } = await il.pause({
            // An integration's thread: no worker resumes it, and none may fail it (src/worker/resume.ts).
            thread: { id: threadId, agent: name, agentVersion: '1', metadata: { integration: 'mcp' } },
            items: [await gate.pauseItem(call, c)],
            proposer: `agent:${name}`,
          });
          // A rule of the client's own user: that user confirms, in the client, when it can ask them.
          if (requests[0]?.role === userRole && server.getClientCapabilities()?.elicitation) {
            await confirmByUser(server, requests[0], principal);
            return answer(route, call, await gate.check(call));
          }
          return answer(route, call, await hold(call, progress));
        }
        return answer(route, call, c);
      }
      throw new McpError(McpErrorCode.InternalError, 'Too many repeats of this call.');
    });
    return server;
  }
  return { server: newServer(), tools, newServer };
}
