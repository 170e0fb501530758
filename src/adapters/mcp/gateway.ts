import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../../core/index.ts';
import { createCallGate } from '../core/index.ts';
import { promptIndex } from './proxy-prompts.ts';
import { resourceIndex, resubscribe } from './proxy-resources.ts';
import type { ProxyState } from './proxy-state.ts';
import { Relay, relayedClient } from './relay.ts';
import { newGatewayServer, unionCapabilities } from './server.ts';
import type { GatewayContext, McpGatewayOptions as GateOptions, Route } from './types.ts';
import { UpstreamLink, type LinkHooks, type ListKind } from './upstream-link.ts';
import { toolRoutes, toolSchemas } from './upstreams.ts';
import { wireUpstream } from './wire.ts';

/** Options of {@link createMcpGateway}. */
export interface McpGatewayOptions extends Omit<GateOptions, 'upstreams'> {
  /**
   * The upstream MCP servers by a short name (used to namespace clashing tools, prompts and URIs):
   * a connected client, or a function that connects one. Given a function, the gateway reconnects
   * with backoff when the connection closes; a connected client cannot be reopened.
   */
  upstreams: Record<string, Client | (() => Promise<Client>)>;
}

/** A running gateway: a protocol server per client connection, over the same upstreams and policy. */
export interface McpGateway {
  /** A protocol server for one client (stdio); connect it to any transport. */
  server: Server;
  /** The tools as listed when the gateway started (they follow the upstreams' `list_changed`). */
  tools: McpTool[];
  /** A protocol server for another client connection (one per Streamable HTTP session). */
  newServer: () => Server;
  /** Stop reconnecting and close the upstream connections. */
  close: () => Promise<void>;
}

/**
 * An MCP server that proxies upstream MCP servers through Interlock. Every `tools/call` is gated
 * by the policy (tool names as the gateway lists them): `auto`/`notify` forward, `block` answers a tool
 * error with the rule's reason, `approve`/`escalate` open a durable request and hold the call briefly;
 * if nobody decided by then, the answer says it awaits approval, and the client's repeat of the same
 * call (same principal, tool and arguments, or the same `_meta.callId`) gets the decided outcome. An
 * approved forward is claimed in the ledger under the request's key, so it reaches upstream once.
 * Resources, prompts, completion and logging pass through, with the upstreams' notifications and
 * their requests to the client (sampling, elicitation, roots); see docs/adapters/mcp.md.
 * Connect the returned server to any transport (stdio, Streamable HTTP, in-memory).
 */
export async function createMcpGateway(o: McpGatewayOptions): Promise<McpGateway> {
  if (!o?.interlock) throw new ConfigError('createMcpGateway needs { interlock, upstreams }.');
  if (!o.upstreams || Object.keys(o.upstreams).length === 0)
    throw new ConfigError('createMcpGateway needs at least one upstream: { upstreams: { name: client } }.');
  for (const key of ['holdMs', 'repeatWindowMs', 'trustTtlMs'] as const) {
    const v = o[key];
    if (v !== undefined && (!Number.isInteger(v) || v < 0))
      throw new ConfigError(
        `createMcpGateway: "${key}" must be a whole number of milliseconds, 0 or more, not ${String(v)}.`,
      );
  }
  const il = o.interlock;
  const name = o.name ?? 'mcp-gateway';
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const relay = new Relay();
  const state: ProxyState = {
    links: new Map(),
    relay,
    tools: [],
    resources: resourceIndex([]),
    prompts: promptIndex([]),
    subscriptions: new Map(),
  };
  const ctx: GatewayContext = {
    // The call path reads the options, never the upstreams (it reaches them through its routes).
    o: { ...o, upstreams: {} },
    il,
    name,
    holdMs: o.holdMs ?? 20_000,
    repeatWindowMs: o.repeatWindowMs,
    trustTtlMs: o.trustTtlMs ?? 3_600_000,
    userRole: o.userRole ?? 'mcp-user',
    gate,
    routes: new Map<string, Route>(),
    answered: new Set<string>(),
  };
  const hooks = linkHooks(ctx, state);
  const links = await Promise.all(
    Object.entries(o.upstreams).map(([n, source]) => UpstreamLink.open(n, source, hooks)),
  );
  for (const l of links) state.links.set(l.name, l);
  await rebuild(ctx, state);
  const capabilities = unionCapabilities(links);
  const newServer = () => newGatewayServer(ctx, state, capabilities);
  return {
    server: newServer(),
    tools: state.tools,
    newServer,
    close: async () => {
      await Promise.all(links.map((l) => l.close()));
    },
  };
}

/** How the links tell the gateway of changes: lists merged again, clients told, subscriptions renewed. */
function linkHooks(ctx: GatewayContext, state: ProxyState): LinkHooks {
  const log = (line: string) => void process.stderr.write(`${line}\n`);
  async function changed(link: UpstreamLink, kinds: ListKind[]) {
    try {
      await rebuild(ctx, state);
      if (kinds.length > 1) await resubscribe(state, link);
      for (const kind of kinds) await state.relay.broadcast({ method: `notifications/${kind}/list_changed` });
    } catch (err) {
      log(`interlock mcp: upstream "${link.name}": updating the gateway's lists failed: ${String(err)}`);
    }
  }
  async function relist(link: UpstreamLink, kind: ListKind) {
    try {
      await link.relist(kind);
    } catch (err) {
      log(`interlock mcp: upstream "${link.name}": listing ${kind} again failed: ${String(err)}`);
      return;
    }
    await changed(link, [kind]);
  }
  return {
    wire: (link, client) => wireUpstream(state, link, client, (kind) => void relist(link, kind)),
    changed: (link, kinds) => void changed(link, kinds),
    log,
  };
}

/** The merged lists and the tools' routes, from what each link listed last. */
async function rebuild(ctx: GatewayContext, state: ProxyState): Promise<void> {
  const links = [...state.links.values()];
  const routes = toolRoutes(
    links.map((l) => ({
      upstream: l.name,
      client: relayedClient(l.name, l.client, state.relay),
      tools: l.listing.tools,
    })),
  );
  ctx.routes.clear();
  for (const [k, v] of routes) ctx.routes.set(k, v);
  state.tools = [...routes.values()].map((r) => ({ ...r.tool, name: r.name }));
  state.resources = resourceIndex(links);
  state.prompts = promptIndex(links);
  await publishTools(ctx);
}

/**
 * Reviewers' edits are checked against the schemas of the tools as the gateway lists them now: here,
 * and in the service beside the gateway (same database, another process), which reads them there.
 */
function publishTools(ctx: GatewayContext): Promise<void> {
  ctx.il.registerTools(toolSchemas(ctx.routes));
  return ctx.il.publishToolSchemas(
    ctx.name,
    [...ctx.routes.values()].map((r) => ({
      name: r.name,
      inputSchema: r.tool.inputSchema,
      ...(r.tool.description ? { description: r.tool.description } : {}),
    })),
  );
}
