import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ErrorCode as McpErrorCode,
  McpError,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { listAllPages, listTools, servable } from './upstreams.ts';

/** What the gateway knows of one upstream: its lists, as of the last listing. */
export interface Listing {
  tools: McpTool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
}

/** A list an upstream can announce a change of. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** What a link tells the gateway, and how the gateway wires a fresh connection. */
export interface LinkHooks {
  /** A new connection to wire up (notification and request handlers) before it is listed. */
  wire(link: UpstreamLink, client: Client): void;
  /** The link's lists changed (after a `list_changed`, or after a reconnect: all of them). */
  changed(link: UpstreamLink, kinds: ListKind[]): void;
  log(line: string): void;
}

/** How long to wait before reconnect attempt `n` (0-based): 250 ms doubling, at most 30 s. */
export const backoffMs = (n: number) => Math.min(30_000, 250 * 2 ** n);

/**
 * One upstream MCP server as the gateway holds it: the current connection, what it lists, and — when
 * the gateway was given a way to connect (a function, not a connected client) — reconnection with
 * backoff after the connection closes. Calls while it reconnects are refused with an MCP error.
 */
export class UpstreamLink {
  client: Client;
  state: 'up' | 'reconnecting' | 'closed' = 'up';
  listing: Listing = { tools: [], resources: [], templates: [], prompts: [] };
  readonly name: string;
  private readonly connect: (() => Promise<Client>) | undefined;
  private readonly hooks: LinkHooks;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  private constructor(name: string, client: Client, connect: (() => Promise<Client>) | undefined, hooks: LinkHooks) {
    this.name = name;
    this.client = client;
    this.connect = connect;
    this.hooks = hooks;
  }

  /** Connect (when given a function), wire and list an upstream. */
  static async open(name: string, source: Client | (() => Promise<Client>), hooks: LinkHooks): Promise<UpstreamLink> {
    const connect = typeof source === 'function' ? source : undefined;
    const client = connect ? await connect() : (source as Client);
    const link = new UpstreamLink(name, client, connect, hooks);
    await link.adopt(client);
    return link;
  }

  /** The upstream's capabilities as it declared them when this connection started. */
  get capabilities(): ServerCapabilities {
    return this.client.getServerCapabilities() ?? {};
  }

  /** Refuse a request while the upstream is not connected, with what to do about it. */
  ensureUp(): void {
    if (this.state === 'up') return;
    throw new McpError(
      McpErrorCode.InternalError,
      this.state === 'closed'
        ? `Upstream "${this.name}" is closed: the gateway is shutting down.`
        : `Upstream "${this.name}" is reconnecting (its connection closed); try again in a few seconds.`,
      { code: this.state === 'closed' ? 'upstream_closed' : 'upstream_reconnecting', upstream: this.name },
    );
  }

  /** List one kind again (after its `list_changed`). */
  async relist(kind: ListKind): Promise<void> {
    const c = this.client;
    const caps = this.capabilities;
    if (kind === 'tools') this.listing.tools = await this.tools(c);
    if (kind === 'prompts' && caps.prompts) this.listing.prompts = await listPrompts(c);
    if (kind === 'resources' && caps.resources) {
      const [resources, templates] = await Promise.all([listResources(c), listTemplates(c)]);
      this.listing = { ...this.listing, resources, templates };
    }
  }

  /**
   * The connection was lost (its transport closed, or a request failed in a way only a new session
   * mends). With a way to connect, reconnect with backoff; a given client cannot be reopened.
   */
  lost(why: string): void {
    if (this.state !== 'up') return;
    this.hooks.log(
      `interlock mcp: upstream "${this.name}" lost (${why})${this.connect ? '; reconnecting' : '; it cannot be reconnected (the gateway was given a connected client)'}`,
    );
    this.state = 'reconnecting';
    void this.client.close().catch(() => undefined);
    if (this.connect) this.schedule();
  }

  /** Stop reconnecting and close the connection. */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.timer);
    await this.client.close().catch(() => undefined);
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.retry(), backoffMs(this.attempt++));
    this.timer.unref?.();
  }

  private async retry(): Promise<void> {
    if (this.state !== 'reconnecting' || !this.connect) return;
    let client: Client | undefined;
    try {
      client = await this.connect();
      if ((this.state as string) === 'closed') {
        await client.close();
        return;
      }
      await this.adopt(client);
      this.attempt = 0;
      this.hooks.log(`interlock mcp: upstream "${this.name}" reconnected`);
      this.hooks.changed(this, ['tools', 'resources', 'prompts']);
    } catch (err) {
      await client?.close().catch(() => undefined);
      this.hooks.log(
        `interlock mcp: upstream "${this.name}" reconnect failed (${err instanceof Error ? err.message : String(err)}); retrying in ${backoffMs(this.attempt)} ms`,
      );
      this.state = 'reconnecting';
      this.schedule();
    }
  }

  /** Wire a fresh connection, list everything it serves, and make it the link's connection. */
  private async adopt(client: Client): Promise<void> {
    this.client = client;
    this.hooks.wire(this, client);
    const caps = client.getServerCapabilities() ?? {};
    const [tools, resources, templates, prompts] = await Promise.all([
      caps.tools ? this.tools(client) : [],
      caps.resources ? listResources(client) : [],
      caps.resources ? listTemplates(client) : [],
      caps.prompts ? listPrompts(client) : [],
    ]);
    this.listing = { tools, resources, templates, prompts };
    this.state = 'up';
    // A stdio child that exits, or a transport that closes: reconnect. Set after listing, so a
    // connection that dies while being listed fails this attempt instead of scheduling a second.
    client.onclose = () => {
      if (this.client === client) this.lost('connection closed');
    };
  }

  private async tools(c: Client): Promise<McpTool[]> {
    const all = await listTools(c);
    const skipped = all.filter((t) => !servable(t)).map((t) => t.name);
    if (skipped.length)
      this.hooks.log(
        `interlock mcp: upstream "${this.name}": not listing ${skipped.join(', ')} (they run only as MCP tasks, which the gateway cannot put through the policy)`,
      );
    return all.filter(servable);
  }
}

const listResources = (c: Client) =>
  listAllPages(
    (cursor) => c.listResources(cursor === undefined ? {} : { cursor }),
    (p) => p.resources,
  );
const listTemplates = (c: Client) =>
  listAllPages(
    (cursor) => c.listResourceTemplates(cursor === undefined ? {} : { cursor }),
    (p) => p.resourceTemplates,
  );
const listPrompts = (c: Client) =>
  listAllPages(
    (cursor) => c.listPrompts(cursor === undefined ? {} : { cursor }),
    (p) => p.prompts,
  );
