import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode as McpErrorCode,
  McpError,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallExtra } from './principals.ts';
import { shifted } from './progress.ts';

/** One client connection to the gateway: its protocol server, log level and resource subscriptions. */
export interface Session {
  server: Server;
  /** The lowest log level this client asked for (`logging/setLevel`); undefined: everything. */
  level?: LoggingLevel;
  /** Exposed URIs this client subscribed to. */
  subscriptions: Set<string>;
}

/** A request of a client in flight on an upstream: who asked, and the handler's extra to answer on. */
export interface InFlight {
  session: Session;
  extra: CallExtra;
}

const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Who an upstream's own messages go to. MCP gives a server-to-client request or notification no link
 * to the call that caused it, so the gateway sends it to the client whose request is in flight on that
 * upstream (the latest, when several are), and otherwise to the client that was active last. Messages
 * sent in a call's scope are sent as related to that call, so over Streamable HTTP they travel on the
 * call's own response stream.
 */
export class Relay {
  readonly sessions = new Set<Session>();
  /** The tools/call being handled on this async path, so the upstream call it makes can be attributed. */
  readonly callScope = new AsyncLocalStorage<InFlight>();
  private last: Session | undefined;
  private readonly inFlight = new Map<string, InFlight[]>();

  /** A client connection; it stays until its server's transport is gone. */
  add(server: Server): Session {
    const s: Session = { server, subscriptions: new Set() };
    this.sessions.add(s);
    this.last = s;
    return s;
  }

  /** The client made a request: it is now the most recent one. */
  touch(s: Session): void {
    this.last = s;
  }

  /** The connected sessions (a closed one is dropped here: its server has no transport any more). */
  live(): Session[] {
    for (const s of this.sessions) if (!s.server.transport) this.sessions.delete(s);
    return [...this.sessions];
  }

  /** Run `fn` as a request of `who` in flight on `upstream`. */
  async during<T>(upstream: string, who: InFlight, fn: () => Promise<T>): Promise<T> {
    const list = this.inFlight.get(upstream) ?? [];
    list.push(who);
    this.inFlight.set(upstream, list);
    try {
      return await fn();
    } finally {
      list.splice(list.indexOf(who), 1);
    }
  }

  /** Where a message of `upstream` goes: its latest in-flight requester, else the last active client. */
  target(upstream: string): { session: Session; extra?: CallExtra } | undefined {
    const list = this.inFlight.get(upstream) ?? [];
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.session.server.transport) return list[i];
    const last = this.last?.server.transport ? this.last : this.live().at(-1);
    return last ? { session: last } : undefined;
  }

  /** An upstream's request to its client (sampling, elicitation, roots), answered by the real client. */
  async request<T>(
    upstream: string,
    request: ServerRequest,
    schema: Parameters<Server['request']>[1],
    signal: AbortSignal,
  ): Promise<T> {
    const to = this.target(upstream);
    if (!to)
      throw new McpError(
        McpErrorCode.InternalError,
        `No MCP client is connected to the gateway to answer ${request.method}; ask again once a client is connected.`,
      );
    const caps = to.session.server.getClientCapabilities() ?? {};
    const needs = {
      'sampling/createMessage': 'sampling',
      'elicitation/create': 'elicitation',
      'roots/list': 'roots',
    } as const;
    const cap = needs[request.method as keyof typeof needs] as (typeof needs)[keyof typeof needs] | undefined;
    if (cap && !caps[cap])
      throw new McpError(
        McpErrorCode.MethodNotFound,
        `The MCP client behind the gateway does not support ${cap} (${request.method}).`,
      );
    const result: unknown = to.extra
      ? await to.extra.sendRequest(request, schema, { signal })
      : await to.session.server.request(request, schema, { signal });
    return result as T;
  }

  /** An upstream's notification (log message) to the client it concerns, within that client's level. */
  async notify(upstream: string, n: ServerNotification): Promise<void> {
    const to = this.target(upstream);
    if (!to) return;
    if (n.method === 'notifications/message' && !atLeast(n.params.level, to.session.level)) return;
    await (to.extra ? to.extra.sendNotification(n) : to.session.server.notification(n)).catch(() => undefined);
  }

  /** A notification every connected client gets (list changes). */
  async broadcast(n: ServerNotification): Promise<void> {
    await Promise.all(this.live().map((s) => s.server.notification(n).catch(() => undefined)));
  }
}

function atLeast(level: LoggingLevel, min: LoggingLevel | undefined): boolean {
  return min === undefined || LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

/**
 * The upstream client as the gateway's routes hold it: `callTool` made in a tools/call's scope is
 * recorded as that client's request in flight (so the upstream's sampling, elicitation, roots and log
 * messages reach that client), and the client's progress token is followed: the upstream's progress
 * comes back to the caller under the caller's own token.
 */
export function relayedClient(upstream: string, client: Client, relay: Relay): Client {
  const callTool: Client['callTool'] = (params, schema, options) => {
    const who = relay.callScope.getStore();
    if (!who) return client.callTool(params, schema, options);
    const token = who.extra._meta?.progressToken;
    const opts =
      token === undefined
        ? options
        : {
            ...options,
            onprogress: (p: { progress: number; total?: number; message?: string }) => {
              options?.onprogress?.(p);
              void who.extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { ...p, ...shifted(who.extra, p), progressToken: token },
                })
                .catch(() => undefined);
            },
          };
    return relay.during(upstream, who, () => client.callTool(params, schema, opts));
  };
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'callTool') return callTool;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
