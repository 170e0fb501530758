import { ConfigError } from '../../core/index.ts';
import { createCallGate, runTurn, schemasOf, leasedRuns, turnThread } from '../core/index.ts';
import { resumeRun, runAndSave, type StrandsContext } from './runs.ts';
import type { StrandsAgent, StrandsAgentOptions, StrandsRunResult } from './types.ts';
export { interlockRun, type InterlockExecution } from '../core/index.ts';
export type { StrandsAgent, StrandsAgentOptions, StrandsRunInput, StrandsRunResult, StrandsSaved } from './types.ts';
export { INTERRUPT_NAME } from './hooks.ts';

/**
 * Put Interlock in front of a Strands Agents (TypeScript) agent's tools, as the agent's hook
 * provider. `BeforeToolsEvent` checks the model's step; `BeforeToolCallEvent` runs each call the
 * policy lets run (or a reviewer approved) once under the execute-once ledger, cancels a blocked or
 * rejected one with the model-facing text, and raises an interrupt — stop reason `interrupt` — for
 * one that needs a person, backed by a durable Interlock request. The agent's session snapshot is
 * stored in Interlock's checkpoint, so `resume` — or the Interlock worker — continues the thread in
 * any process, answering each decided call's interrupt by id with the reviewer's decision.
 *
 * @example
 * const support = createStrandsAgent({
 *   name: 'order-support', interlock,
 *   agent: () => new Agent({ model, tools: [lookupOrder, issueRefund], printer: false }),
 * });
 * const r = await support.invoke('Refund order A-1001 ($850)');   // r.stopReason: 'interrupt'
 * await support.resume(r.threadId);                                // after a reviewer decided
 */
export function createStrandsAgent(o: StrandsAgentOptions): StrandsAgent {
  checkOptions(o);
  const il = o.interlock;
  const version = o.version ?? '1';
  il.registerTools(
    schemasOf(Object.fromEntries(Object.entries(o.schemas ?? {}).map(([k, schema]) => [k, { inputSchema: schema }]))),
  );
  const gate = createCallGate({
    interlock: il,
    proposer: `agent:${o.name}`,
    ...(o.app ? { app: o.app } : {}),
    ...(o.evidence ? { evidence: o.evidence } : {}),
    ...(o.texts ? { texts: o.texts } : {}),
  });
  const ctx: StrandsContext = { o, name: o.name, gate, built: new WeakSet() };
  const held = leasedRuns<StrandsRunResult>(il, { agent: o.name, version, integration: 'strands' });
  return {
    name: o.name,
    version,
    async invoke(input, opts = {}) {
      const threadId = turnThread(input, opts);
      return held(threadId, true, (run) => runAndSave(ctx, run, threadId, input, runTurn(run.messages.length, input)));
    },
    async resume(threadId) {
      return held(threadId, false, (run) => resumeRun(ctx, run, threadId));
    },
    async abort(threadId, by = `agent:${o.name}`) {
      return il.threads.abort(threadId, by);
    },
  };
}

/** Refuse options the adapter cannot run with, when it is built. */
function checkOptions(o: StrandsAgentOptions): void {
  if (!o || typeof o !== 'object')
    throw new ConfigError('createStrandsAgent needs options: { name, interlock, agent: () => new Agent({ ... }) }.');
  if (!o.interlock) throw new ConfigError('createStrandsAgent: "interlock" is required.');
  if (typeof o.name !== 'string' || o.name.length === 0)
    throw new ConfigError('createStrandsAgent: "name" is required (threads carry it; the worker resumes by it).');
  if (typeof o.agent !== 'function')
    throw new ConfigError(
      'createStrandsAgent: "agent" must be a function that builds a new Agent each call: agent: () => new Agent({ model, tools }).',
    );
  if (o.run !== undefined && typeof o.run !== 'function')
    throw new ConfigError('createStrandsAgent: "run" must be (agent, input) => agent.invoke(input).');
}
