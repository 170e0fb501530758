import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  ErrorCode as McpErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type Resource,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import type { ProxyState, ResourceIndex, ResourceRoute } from './proxy-state.ts';
import type { Session } from './relay.ts';
import type { UpstreamLink } from './upstream-link.ts';
import { clashes } from './upstreams.ts';

/** A URI (or template) two upstreams share is exposed as `<upstream>+<uri>`; a unique one as it is. */
export const prefixUri = (upstream: string, uri: string) => `${upstream}+${uri}`;

/** Merge the links' resources and templates, prefixing only what clashes. */
export function resourceIndex(links: UpstreamLink[]): ResourceIndex {
  const clashR = clashes(links.map((l) => ({ names: l.listing.resources.map((r) => r.uri) })));
  const clashT = clashes(links.map((l) => ({ names: l.listing.templates.map((t) => t.uriTemplate) })));
  const byUri = new Map<string, ResourceRoute>();
  const matchers: Array<{ upstream: string; template: UriTemplate }> = [];
  const resources: Resource[] = [];
  const templates: ResourceTemplate[] = [];
  for (const l of links) {
    for (const r of l.listing.resources) {
      const prefixed = clashR.has(r.uri);
      const uri = prefixed ? prefixUri(l.name, r.uri) : r.uri;
      byUri.set(uri, { upstream: l.name, uri: r.uri, prefixed });
      resources.push({ ...r, uri });
    }
    for (const t of l.listing.templates) {
      const prefixed = clashT.has(t.uriTemplate);
      templates.push(prefixed ? { ...t, uriTemplate: prefixUri(l.name, t.uriTemplate) } : t);
      if (!prefixed) matchers.push({ upstream: l.name, template: safeTemplate(t.uriTemplate) });
    }
  }
  const serving = links.filter((l) => l.capabilities.resources).map((l) => l.name);
  return {
    resources,
    templates,
    resolve(uri) {
      const listed = byUri.get(uri);
      if (listed) return listed;
      for (const l of links)
        if (uri.startsWith(`${l.name}+`))
          return { upstream: l.name, uri: uri.slice(l.name.length + 1), prefixed: true };
      const m = matchers.find((x) => x.template.match(uri));
      if (m) return { upstream: m.upstream, uri, prefixed: false };
      // One upstream with resources: it may serve URIs it does not list.
      return serving.length === 1 ? { upstream: serving[0]!, uri, prefixed: false } : undefined;
    },
  };
}

/** A template the SDK cannot parse matches nothing (its resources are still listed and readable by prefix). */
function safeTemplate(t: string): UriTemplate {
  try {
    return new UriTemplate(t);
  } catch {
    return { match: () => null } as unknown as UriTemplate;
  }
}

/** Route a URI, or refuse it with the MCP "resource not found" error. */
export function routeUri(state: ProxyState, uri: string): ResourceRoute {
  const r = state.resources.resolve(uri);
  if (!r)
    throw new McpError(
      -32002,
      `No upstream serves resource "${uri}"; resources/list and resources/templates/list name what this gateway serves.`,
      { uri },
    );
  return r;
}

/** resources/list, templates, read, subscribe and unsubscribe of one client connection. */
export function serveResources(server: Server, state: ProxyState, session: Session): void {
  const { relay } = state;
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: state.resources.resources }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: state.resources.templates,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    relay.touch(session);
    const route = routeUri(state, request.params.uri);
    const link = state.links.get(route.upstream)!;
    link.ensureUp();
    const r = await relay.during(route.upstream, { session, extra }, () =>
      link.client.readResource({ ...request.params, uri: route.uri }, { signal: extra.signal }),
    );
    if (!route.prefixed) return r;
    return { ...r, contents: r.contents.map((c) => ({ ...c, uri: prefixUri(route.upstream, c.uri) })) };
  });
  if (!anySubscribe(state)) return;
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    relay.touch(session);
    const route = routeUri(state, request.params.uri);
    const subs = subscribers(state, route);
    if (subs.size === 0) {
      const link = state.links.get(route.upstream)!;
      link.ensureUp();
      if (!link.capabilities.resources?.subscribe)
        throw new McpError(
          McpErrorCode.MethodNotFound,
          `Upstream "${route.upstream}" does not support resource subscriptions.`,
        );
      await link.client.subscribeResource({ uri: route.uri }, { signal: extra.signal });
    }
    subs.set(session, request.params.uri);
    session.subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    relay.touch(session);
    const route = routeUri(state, request.params.uri);
    session.subscriptions.delete(request.params.uri);
    await unsubscribe(state, route, session, extra.signal);
    return {};
  });
}

const anySubscribe = (state: ProxyState) => [...state.links.values()].some((l) => l.capabilities.resources?.subscribe);

const subKey = (route: ResourceRoute) => `${route.upstream}\n${route.uri}`;

function subscribers(state: ProxyState, route: ResourceRoute): Map<Session, string> {
  let subs = state.subscriptions.get(subKey(route));
  if (!subs) state.subscriptions.set(subKey(route), (subs = new Map<Session, string>()));
  return subs;
}

/** Drop a session's subscription; the upstream is unsubscribed when no client is left on it. */
async function unsubscribe(state: ProxyState, route: ResourceRoute, s: Session, signal?: AbortSignal): Promise<void> {
  const subs = subscribers(state, route);
  if (!subs.delete(s) || subs.size > 0) return;
  state.subscriptions.delete(subKey(route));
  const link = state.links.get(route.upstream);
  if (link?.state === 'up') await link.client.unsubscribeResource({ uri: route.uri }, signal ? { signal } : {});
}

/** An upstream's `notifications/resources/updated`: to each client subscribed, under its URI. */
export async function resourceUpdated(state: ProxyState, upstream: string, uri: string): Promise<void> {
  const subs = state.subscriptions.get(subKey({ upstream, uri, prefixed: false }));
  if (!subs) return;
  for (const [s, exposed] of subs) {
    if (!s.server.transport) {
      await unsubscribe(state, { upstream, uri, prefixed: false }, s).catch(() => undefined);
      continue;
    }
    await s.server.sendResourceUpdated({ uri: exposed }).catch(() => undefined);
  }
}

/** After a reconnect: subscribe the new connection to what clients are still subscribed to. */
export async function resubscribe(state: ProxyState, link: UpstreamLink): Promise<void> {
  for (const key of state.subscriptions.keys()) {
    const [upstream, uri] = key.split('\n') as [string, string];
    if (upstream === link.name) await link.client.subscribeResource({ uri }).catch(() => undefined);
  }
}
