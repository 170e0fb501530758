import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { resourceUpdated } from './proxy-resources.ts';
import type { ProxyState } from './proxy-state.ts';
import type { UpstreamLink, ListKind } from './upstream-link.ts';

/**
 * What the gateway's client declares to upstreams: it relays sampling, elicitation (form and URL) and
 * roots to the MCP client that caused them, so an upstream may use them. When that client does not
 * support one, the upstream's request gets an MCP error saying so.
 */
export const RELAYED_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

/**
 * Errors after which only a new connection helps: the server is gone (refused, reset) or no longer
 * knows the session (HTTP 404 after a restart).
 */
const FATAL =
  /ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|Maximum reconnection attempts|HTTP 404|Session not found/i;

/** Wire a fresh upstream connection: its notifications and requests reach the gateway's clients. */
export function wireUpstream(
  state: ProxyState,
  link: UpstreamLink,
  client: Client,
  listChanged: (kind: ListKind) => void,
): void {
  const { relay } = state;
  const up = link.name;
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => relay.notify(up, n));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resourceUpdated(state, up, n.params.uri));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => listChanged('resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => listChanged('prompts'));
  // A client connected by the caller may not declare these: then the upstream never sends them.
  const handle = (register: () => void) => {
    try {
      register();
    } catch {
      // The client did not declare the capability.
    }
  };
  handle(() =>
    client.setRequestHandler(CreateMessageRequestSchema, (req, extra) =>
      relay.request(up, req, CreateMessageResultSchema, extra.signal),
    ),
  );
  handle(() =>
    client.setRequestHandler(ElicitRequestSchema, (req, extra) =>
      relay.request(up, req, ElicitResultSchema, extra.signal),
    ),
  );
  handle(() =>
    client.setRequestHandler(ListRootsRequestSchema, (req, extra) =>
      relay.request(up, req, ListRootsResultSchema, extra.signal),
    ),
  );
  client.onerror = (err) => {
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    if (link.client === client && FATAL.test(`${err.message} ${cause?.message ?? ''} ${cause?.code ?? ''}`))
      link.lost(err.message);
  };
}
