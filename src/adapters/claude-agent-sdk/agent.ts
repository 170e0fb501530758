import { createCallGate, runTurn, schemasOf, leasedRuns, turnThread } from '../core/index.ts';
import { holdFor, type HeldCall } from './hold.ts';
import { resumeRun } from './resume.ts';
import type { ClaudeContext, HookContext } from './context.ts';
import { runAndSave } from './runs.ts';
import { createScope } from './scope.ts';
import { guardTools } from './tools.ts';
import type { ClaudeAgent, ClaudeAgentOptions, ClaudeRunResult } from './types.ts';
import { checkOptions } from './options.ts';

export { interlockRun, type InterlockExecution } from '../core/index.ts';
export type {
  ClaudeAgent,
  ClaudeAgentOptions,
  ClaudeQuery,
  ClaudeRunResult,
  ClaudeTool,
  DecidedCall,
} from './types.ts';
export { resumePrompt } from './messages.ts';
export { ClaudeTurnError } from './runs.ts';

/**
 * Put Interlock in front of every tool call of a Claude Agent SDK session: built-in tools (Bash, Edit,
 * Write, WebFetch…), MCP tools and your in-process tools alike pass a `PreToolUse` hook answered by
 * Interlock's policy and recorded decisions. A call that needs a person is refused to the model for
 * now and opens a durable request; `resume` — or the Interlock worker — continues the session
 * (`resume: sessionId`) once a reviewer decided, and the approved call runs once.
 *
 * @example
 * const support = createClaudeAgent({ interlock, query: (p) => query(p), createSdkMcpServer, tools: [refund], server: 'shop' });
 * const r = await support.invoke('Refund order A-1001');   // r.stopReason: 'interrupt'
 * await support.resume(r.threadId);                        // after a reviewer decided
 */
export function createClaudeAgent(o: ClaudeAgentOptions): ClaudeAgent {
  checkOptions(o);
  const il = o.interlock;
  const name = o.name ?? 'claude-agent';
  const version = o.version ?? '1';
  const prefix = `mcp__${o.server ?? 'interlock'}__`;
  const own = new Set((o.tools ?? []).map((t) => `${prefix}${t.name}`));
  // Your tools' handlers run only through Interlock's server from now on: a session given them some other way fails closed.
  const originals = guardTools(o.tools ?? []);
  const descriptions = new Map((o.tools ?? []).map((t) => [t.name, t.description]));
  il.registerTools(
    schemasOf(
      Object.fromEntries(
        Object.entries(o.schemas ?? {}).map(([k, schema]) => [
          k,
          { parameters: schema, description: descriptions.get(k) },
        ]),
      ),
    ),
  );
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const hook: HookContext = {
    gate,
    policyName: (n) => o.toolName?.(n) ?? (own.has(n) ? n.slice(prefix.length) : n),
    isOwn: (n) => own.has(n),
    texts: {
      ask: (reason) =>
        `This call needs a reviewer's approval (${reason}); it did not run. The session pauses until a reviewer decides; you will be told the decision. Do not call it again now.`,
      waiting: () => 'This call is still waiting for a reviewer; it did not run. Do not call it again now.',
      ranOnce: (id) => `This call already ran once under request ${id}; an approval runs its call once.`,
    },
  };
  const ctx: ClaudeContext = { o, name, gate, hook, originals };
  const held = leasedRuns<ClaudeRunResult>(il, { agent: name, version, integration: 'claude-agent-sdk' });
  return {
    name,
    version,
    async invoke(input, opts = {}) {
      const threadId = turnThread(input, opts);
      return held(threadId, true, (run) => {
        const calls = gate.forRun(threadId, [], runTurn(run.messages.length, input));
        const held: HeldCall[] = [];
        const scope = createScope(threadId, calls, new Map(), holdFor(ctx, run, held));
        return runAndSave(ctx, run, threadId, input, scope, held);
      });
    },
    resume: (threadId) => held(threadId, false, (run) => resumeRun(ctx, run, threadId)),
    abort: (threadId, by = `agent:${name}`) => il.threads.abort(threadId, by),
  };
}
