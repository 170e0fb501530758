import { ConfigError } from '../../core/index.ts';
import type { ClaudeAgentOptions } from './types.ts';

/**
 * Refuse options the adapter cannot gate with, when it is built: `bypassPermissions` (and the flag that
 * allows it) would let the CLI skip the permission flow Interlock answers, a `canUseTool` of your own
 * would answer in Interlock's place, and your tools need the SDK's `createSdkMcpServer` to be served.
 */
export function checkOptions(o: ClaudeAgentOptions): void {
  const fn = 'createClaudeAgent';
  if (!o || typeof o !== 'object')
    throw new ConfigError(`${fn} needs options: { interlock, query, tools?, options? }.`);
  if (!o.interlock) throw new ConfigError(`${fn}: "interlock" is required.`);
  if (typeof o.query !== 'function')
    throw new ConfigError(
      `${fn}: "query" must be (params) => query(params), with query from @anthropic-ai/claude-agent-sdk.`,
    );
  const opts = (o.options ?? {}) as Record<string, unknown>;
  if (opts.permissionMode === 'bypassPermissions' || opts.allowDangerouslySkipPermissions)
    throw new ConfigError(
      `${fn}: permissionMode "bypassPermissions" (and allowDangerouslySkipPermissions) must not be used with Interlock: it lets Claude Code run tools without asking. Use "default" (or "dontAsk", "acceptEdits", "plan"); Interlock's policy decides what runs without a person.`,
      { option: 'permissionMode' },
    );
  if (opts.canUseTool !== undefined)
    throw new ConfigError(
      `${fn}: Interlock answers canUseTool itself; remove yours and put its rules in the Interlock policy.`,
      { option: 'canUseTool' },
    );
  if (opts.sessionStore !== undefined)
    throw new ConfigError(
      `${fn}: Interlock keeps each thread's session transcript with the thread (so any process resumes it); remove "sessionStore".`,
      { option: 'sessionStore' },
    );
  if (opts.resume !== undefined)
    throw new ConfigError(
      `${fn}: Interlock keeps each thread's session; do not pass "resume" (call agent.resume(threadId)).`,
    );
  const server = o.server ?? 'interlock';
  if (o.tools?.length && typeof o.createSdkMcpServer !== 'function')
    throw new ConfigError(
      `${fn}: "tools" need "createSdkMcpServer" from @anthropic-ai/claude-agent-sdk to be served to Claude.`,
    );
  if (o.tools?.length && (opts.mcpServers as Record<string, unknown> | undefined)?.[server])
    throw new ConfigError(
      `${fn}: options.mcpServers already has a server "${server}"; Interlock serves your tools under that name. Pick another "server".`,
    );
  if (o.turnTimeoutMs !== undefined && !(Number.isFinite(o.turnTimeoutMs) && o.turnTimeoutMs > 0))
    throw new ConfigError(`${fn}: "turnTimeoutMs" must be a number of milliseconds > 0.`);
  if (o.holdMs !== undefined && !(Number.isFinite(o.holdMs) && o.holdMs >= 0))
    throw new ConfigError(`${fn}: "holdMs" must be a number of milliseconds ≥ 0.`);
}
