import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode as McpErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
  type CompleteRequest,
  type Prompt,
} from '@modelcontextprotocol/sdk/types.js';
import { routeUri } from './proxy-resources.ts';
import type { PromptIndex, ProxyState } from './proxy-state.ts';
import type { Session } from './relay.ts';
import type { UpstreamLink } from './upstream-link.ts';
import { clashes, exposedName } from './upstreams.ts';

/** Merge the links' prompts, namespacing only the names two upstreams share. */
export function promptIndex(links: UpstreamLink[]): PromptIndex {
  const clash = clashes(links.map((l) => ({ names: l.listing.prompts.map((p) => p.name) })));
  const prompts: Prompt[] = [];
  const routes = new Map<string, { upstream: string; name: string }>();
  for (const l of links)
    for (const p of l.listing.prompts) {
      const name = exposedName(p.name, l.name, clash.has(p.name));
      prompts.push({ ...p, name });
      routes.set(name, { upstream: l.name, name: p.name });
    }
  return { prompts, routes };
}

function routePrompt(state: ProxyState, name: string): { upstream: string; name: string } {
  const r = state.prompts.routes.get(name);
  if (!r)
    throw new McpError(
      McpErrorCode.InvalidParams,
      `Unknown prompt "${name}"; prompts/list names the prompts this gateway serves.`,
    );
  return r;
}

/** prompts/list and prompts/get of one client connection. */
export function servePrompts(server: Server, state: ProxyState, session: Session): void {
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: state.prompts.prompts }));
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    state.relay.touch(session);
    const route = routePrompt(state, request.params.name);
    const link = state.links.get(route.upstream)!;
    link.ensureUp();
    return state.relay.during(route.upstream, { session, extra }, () =>
      link.client.getPrompt({ ...request.params, name: route.name }, { signal: extra.signal }),
    );
  });
}

/**
 * completion/complete, routed by what it completes: a prompt by its name, a resource template by its
 * URI. An upstream that does not declare completions answers no suggestions.
 */
export function serveCompletion(server: Server, state: ProxyState, session: Session): void {
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    state.relay.touch(session);
    const { ref } = request.params;
    let upstream: string;
    let routed: CompleteRequest['params']['ref'];
    if (ref.type === 'ref/prompt') {
      const r = routePrompt(state, ref.name);
      upstream = r.upstream;
      routed = { ...ref, name: r.name };
    } else {
      const r = routeTemplate(state, ref.uri);
      upstream = r.upstream;
      routed = { ...ref, uri: r.uri };
    }
    const link = state.links.get(upstream)!;
    link.ensureUp();
    if (!link.capabilities.completions) return { completion: { values: [], hasMore: false } };
    return state.relay.during(upstream, { session, extra }, () =>
      link.client.complete({ ...request.params, ref: routed }, { signal: extra.signal }),
    );
  });
}

/** A `ref/resource` names a template (or a URI): its upstream and the upstream's own form of it. */
function routeTemplate(state: ProxyState, uri: string): { upstream: string; uri: string } {
  for (const [name, link] of state.links) {
    const own = link.listing.templates.find((t) => t.uriTemplate === uri);
    if (own && state.resources.templates.some((t) => t.uriTemplate === uri)) return { upstream: name, uri };
    if (uri.startsWith(`${name}+`)) return { upstream: name, uri: uri.slice(name.length + 1) };
  }
  return routeUri(state, uri);
}
