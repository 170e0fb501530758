import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { actionHash } from '../../core/index.ts';
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
  /** Progress to the client while a call waits on a reviewer, when the client asked for it. */
  progress: (() => Promise<void>) | undefined;
}

/** Requests of different principals are apart: each has a thread of its own on this gateway. */
export function callSite(
  ctx: GatewayContext,
  params: CallToolRequest['params'],
  tool: string,
  extra: CallExtra,
): CallSite {
  const principal = ctx.o.principal?.(extra) ?? 'local';
  const threadId = `mcp:${ctx.name}:${principal}`;
  const args = params.arguments ?? {};
  const meta = params._meta as { callId?: unknown; progressToken?: string | number } | undefined;
  const base = typeof meta?.callId === 'string' && meta.callId ? `c:${meta.callId}` : `h:${actionHash(tool, args)}`;
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
  return { principal, threadId, base, progress };
}
