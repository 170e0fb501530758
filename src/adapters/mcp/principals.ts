import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolRequest, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { actionHash } from '../../core/index.ts';
import { nextTick } from './progress.ts';
import type { GatewayContext } from './types.ts';

/** What a `tools/call` handler is handed beside the request. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Who makes a call, the thread their calls share, and the base of the call's ids. */
export interface CallSite {
  principal: string;
  threadId: string;
  /**
   * The call's id before repeats: the client's `_meta.callId` when it names the call, else the
   * action's hash (the same tool with the same arguments is the same call until it is answered).
   */
  base: string;
  /** Trust grants made before this moment do not count: the client's session start, or the time box's. */
  trustSince: number;
  /** Progress to the client while a call waits on a reviewer, when the client asked for it. */
  progress: (() => Promise<void>) | undefined;
}

/** When each protocol session (one `Server` per client connection) began: trust is scoped to it. */
const sessionStarts = new WeakMap<Server, number>();

/**
 * Who is calling: the option's answer, else the authenticated client (`authInfo.clientId`, set by the
 * HTTP transport from a bearer token), else `local` — the one user of a stdio connection.
 */
export function principalOf(ctx: GatewayContext, extra: CallExtra): string {
  return ctx.o.principal?.(extra) ?? extra.authInfo?.clientId ?? 'local';
}

/** Requests of different principals are apart: each has a thread of its own on this gateway. */
export function callSite(
  ctx: GatewayContext,
  server: Server,
  params: CallToolRequest['params'],
  tool: string,
  extra: CallExtra,
): CallSite {
  const principal = principalOf(ctx, extra);
  const threadId = `mcp:${ctx.name}:${principal}`;
  const args = params.arguments ?? {};
  const meta = params._meta as { callId?: unknown; progressToken?: string | number } | undefined;
  const base = typeof meta?.callId === 'string' && meta.callId ? `c:${meta.callId}` : `h:${actionHash(tool, args)}`;
  const now = ctx.il.now();
  let started = sessionStarts.get(server);
  if (started === undefined) sessionStarts.set(server, (started = now));
  const trustSince = Math.max(started, now - ctx.trustTtlMs);
  const progressToken = meta?.progressToken;
  const progress =
    progressToken === undefined
      ? undefined
      : () =>
          extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: nextTick(extra), message: 'waiting for a reviewer' },
          });
  return { principal, threadId, base, trustSince, progress };
}
