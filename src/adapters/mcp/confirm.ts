import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  describeHidden,
  findHiddenDeep,
  findMixedScriptDeep,
  revealDeep,
  type ApprovalRequest,
} from '../../core/index.ts';
import type { GatewayContext } from './types.ts';

/**
 * The confirmation text the client's user reads: hidden characters shown as markers (`⟨U+202E …⟩`),
 * with a warning naming them and any look-alike words, as the web UI, CLI and Slack show them.
 */
export function confirmationText(req: ApprovalRequest): string {
  const hidden = findHiddenDeep(req.args);
  const lookalike = findMixedScriptDeep(req.args);
  const warnings = [
    ...(hidden.length
      ? [`WARNING: the arguments hold hidden characters (${describeHidden(hidden)}), shown as ⟨…⟩ markers.`]
      : []),
    ...(lookalike.length
      ? [`WARNING: words mixing Latin with look-alike letters: ${lookalike.map((w) => JSON.stringify(w)).join(', ')}.`]
      : []),
  ];
  return [...warnings, `Run ${req.tool} with ${JSON.stringify(revealDeep(req.args))}? (${req.reason})`].join('\n');
}

/**
 * Ask the client's own user to confirm (MCP elicitation) and record their answer as a decision of
 * the user role, like any other: accepted with the box ticked approves, anything else rejects.
 */
export async function confirmByUser(
  ctx: GatewayContext,
  server: Server,
  req: ApprovalRequest,
  principal: string,
  call: { signal: AbortSignal; requestId: string | number },
): Promise<void> {
  let approved = false;
  let why = 'declined by the user';
  try {
    const r = await server.elicitInput(
      {
        mode: 'form',
        message: confirmationText(req),
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Run it', description: `Let ${req.tool} run once` } },
          required: ['confirm'],
        },
      },
      // Sent on the call's own response stream: over HTTP, a client need not hold a GET stream open.
      { signal: call.signal, relatedRequestId: call.requestId },
    );
    approved = r.action === 'accept' && r.content?.confirm === true;
    if (r.action === 'cancel') why = 'cancelled by the user';
  } catch (err) {
    why = `the user could not be asked: ${err instanceof Error ? err.message : String(err)}`;
  }
  const reviewer = { id: `${ctx.userRole}:${principal}`, roles: [ctx.userRole] };
  const guard = { expectedVersion: req.version, actionHash: req.actionHash };
  await ctx.il.decide(
    req.id,
    approved ? { type: 'approve', ...guard } : { type: 'reject', ...guard, message: why },
    reviewer,
  );
}
