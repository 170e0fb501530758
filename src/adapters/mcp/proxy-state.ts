import type { Prompt, Resource, ResourceTemplate, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Relay, Session } from './relay.ts';
import type { UpstreamLink } from './upstream-link.ts';

/** Where an exposed URI is served: the upstream, its own URI, and whether the gateway prefixed it. */
export interface ResourceRoute {
  upstream: string;
  uri: string;
  prefixed: boolean;
}

/** The upstreams' resources and templates as clients see them, and how to route a URI back. */
export interface ResourceIndex {
  resources: Resource[];
  templates: ResourceTemplate[];
  resolve(uri: string): ResourceRoute | undefined;
}

/** The upstreams' prompts as clients see them (namespaced `<upstream>__<prompt>` on a clash), and their routes. */
export interface PromptIndex {
  prompts: Prompt[];
  routes: Map<string, { upstream: string; name: string }>;
}

/**
 * What the gateway serves beside its tools' policy: the upstream links, the merged lists as clients
 * see them (rebuilt after every `list_changed` and reconnect), and the relay to its clients.
 */
export interface ProxyState {
  links: Map<string, UpstreamLink>;
  relay: Relay;
  tools: McpTool[];
  resources: ResourceIndex;
  prompts: PromptIndex;
  /** Per upstream and upstream URI: the sessions subscribed to it, with the URI each knows it by. */
  subscriptions: Map<string, Map<Session, string>>;
}
