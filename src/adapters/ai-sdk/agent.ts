import type { ModelMessage, Tool, ToolSet } from 'ai';
import { ConfigError, newId } from '../../core/index.ts';
import { createCallGate, leasedRuns, guardTool, busyResult, schemasOf } from '../core/index.ts';
import { HOW, type AiSdkContext } from './context.ts';
import { generateTurn } from './generate.ts';
import { newPart } from './messages.ts';
import { resumeThread } from './resume.ts';
import type { AiSdkAgent, AiSdkAgentOptions, AiSdkRunResult } from './types.ts';

export { interlockRun, type InterlockExecution } from '../core/index.ts';
export type { AiSdkAgent, AiSdkAgentOptions, AiSdkRunResult, GenerateInput, GenerateOutput } from './types.ts';

/**
 * Put Interlock in front of an AI SDK (v7) agent's tools. Every call is gated by
 * the policy: `auto`/`notify` run under the execute-once ledger, `block` is denied
 * with the rule's reason, `approve`/`escalate` pause through the SDK's own
 * approval mechanism and open a durable request (checkpoint, request, audit and
 * notification in one transaction). Decisions are made in Interlock (UI, API,
 * CLI, Slack); `resume` — or the Interlock worker, when the agent is registered
 * in `interlock.config.ts` — continues the thread from Interlock's storage.
 *
 * @example
 * const support = createAiSdkAgent({
 *   name: 'order-support', interlock, tools: { lookupOrder, issueRefund },
 *   generate: (i) => generateText({ model, system, stopWhen: stepCountIs(8), ...i }),
 * });
 * const r = await support.invoke('Refund order A-1001 ($850)');
 * // r.stopReason === 'interrupt' → a reviewer decides → await support.resume(r.threadId)
 */
export function createAiSdkAgent<TOOLS extends ToolSet>(o: AiSdkAgentOptions<TOOLS>): AiSdkAgent {
  checkOptions(o);
  const il = o.interlock;
  const version = o.version ?? '1';
  // Reviewers' edits are validated against the tools' own schemas (zod's, where a tool has one).
  il.registerTools(schemasOf(o.tools as Record<string, { inputSchema?: unknown; description?: string }>));
  // The app's own tool objects run only through Interlock from now on: a `generate` that hands the SDK
  // the app's tools instead of the ones Interlock passes in fails closed instead of running them ungated.
  const originals = new Map<string, unknown>();
  for (const [name, t] of Object.entries(o.tools) as Array<[string, Tool]>)
    if (typeof t.execute === 'function') originals.set(name, guardTool(t, 'execute', name, 'AI SDK adapter', HOW));
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${o.name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const ctx: AiSdkContext<TOOLS> = { o, gate, originals };

  const held = leasedRuns<AiSdkRunResult>(il, { agent: o.name, version, integration: 'ai-sdk' }, (threadId) => ({
    ...busyResult(threadId),
    messages: [],
  }));

  return {
    name: o.name,
    version,
    async invoke(input, opts = {}) {
      const threadId = opts.threadId ?? newId<string>('thr');
      const added: ModelMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
      if (added.length === 0) throw new ConfigError('invoke needs a user message: a non-empty string or messages.');
      return held(threadId, true, async (run) => {
        // A chat UI (useChat) sends the whole conversation each time: what Interlock saved already is
        // not added again, only what follows it.
        return generateTurn(ctx, run, threadId, newPart(run.messages as ModelMessage[], added));
      });
    },
    async resume(threadId) {
      return held(threadId, false, (run) => resumeThread(ctx, run, threadId));
    },
    async abort(threadId, by = `agent:${o.name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}

/** Refuse options the adapter cannot run with, when it is built. */
function checkOptions<TOOLS extends ToolSet>(o: AiSdkAgentOptions<TOOLS>): void {
  if (!o || typeof o !== 'object')
    throw new ConfigError('createAiSdkAgent needs options: { name, interlock, tools, generate }.');
  if (typeof o.name !== 'string' || !o.name)
    throw new ConfigError('createAiSdkAgent: "name" must be a non-empty string.');
  if (!o.interlock)
    throw new ConfigError('createAiSdkAgent: "interlock" is required (createInterlock({ store, policy })).');
  if (!o.tools || typeof o.tools !== 'object')
    throw new ConfigError('createAiSdkAgent: "tools" must be your AI SDK tool set.');
  if (typeof o.generate !== 'function')
    throw new ConfigError(
      'createAiSdkAgent: "generate" must be a function calling generateText with what it receives.',
    );
}
