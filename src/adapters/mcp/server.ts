import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { handleCall } from './call-handler.ts';
import { serveCompletion, servePrompts } from './proxy-prompts.ts';
import { serveResources } from './proxy-resources.ts';
import type { ProxyState } from './proxy-state.ts';
import type { GatewayContext } from './types.ts';
import type { UpstreamLink } from './upstream-link.ts';

/**
 * The gateway's capabilities: the union of its upstreams'. Tools always (with `listChanged`: the
 * gateway follows its upstreams' lists and reconnects); resources, prompts, completions and logging
 * when any upstream declares them. Tasks are not proxied.
 */
export function unionCapabilities(links: UpstreamLink[]): ServerCapabilities {
  const caps = links.map((l) => l.capabilities);
  const any = (k: keyof ServerCapabilities) => caps.some((c) => c[k] !== undefined);
  return {
    tools: { listChanged: true },
    ...(any('resources')
      ? { resources: { listChanged: true, subscribe: caps.some((c) => c.resources?.subscribe === true) } }
      : {}),
    ...(any('prompts') ? { prompts: { listChanged: true } } : {}),
    ...(any('completions') ? { completions: {} } : {}),
    ...(any('logging') ? { logging: {} } : {}),
  };
}

/**
 * A protocol server over this gateway, for one client connection (stdio: the one; Streamable HTTP:
 * one per session). Tool calls go through the policy; everything else is proxied to the upstreams.
 */
export function newGatewayServer(ctx: GatewayContext, state: ProxyState, capabilities: ServerCapabilities): Server {
  const server = new Server({ name: 'interlock-mcp-gateway', version: '1' }, { capabilities });
  const { relay } = state;
  const session = relay.add(server);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: state.tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    relay.touch(session);
    const route = ctx.routes.get(request.params.name);
    // Refused before the policy sees it: nothing is recorded for a call that cannot reach its upstream.
    if (route) state.links.get(route.upstream)?.ensureUp();
    return relay.callScope.run({ session, extra }, () => handleCall(ctx, server, request, extra));
  });
  if (capabilities.resources) serveResources(server, state, session);
  if (capabilities.prompts) servePrompts(server, state, session);
  if (capabilities.completions) serveCompletion(server, state, session);
  if (capabilities.logging)
    server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
      relay.touch(session);
      // Each client gets the messages at its own level; the upstreams log at the latest level asked.
      session.level = request.params.level;
      await Promise.all(
        [...state.links.values()]
          .filter((l) => l.state === 'up' && l.capabilities.logging)
          .map((l) => l.client.setLoggingLevel(request.params.level, { signal: extra.signal })),
      );
      return {};
    });
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await Promise.all(
      [...state.links.values()]
        .filter((l) => l.state === 'up')
        .map((l) => l.client.sendRootsListChanged().catch(() => undefined)),
    );
  });
  return server;
}
