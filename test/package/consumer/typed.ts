// A TypeScript consumer: compiled with tsc --strict against the package's declarations.
import { z } from 'zod';
import {
  createInterlock,
  definePolicy,
  openStore,
  tool,
  type ApprovalRequest,
  type Interlock,
  type Tool,
} from 'interlock-approvals';
import { createPostgresStore } from 'interlock-approvals/postgres';
import { startService } from 'interlock-approvals/server';
import { createNotifier } from 'interlock-approvals/notify';
import { scriptedModel } from 'interlock-approvals/testing';
import { createAiSdkAgent, type AiSdkAgent } from 'interlock-approvals/ai-sdk';
import type { OpenAIAgentsAgent, OpenAIAgentsOptions } from 'interlock-approvals/openai-agents';
import type { InterlockInterrupt, GraphOutcome } from 'interlock-approvals/langchain';
import type { McpGatewayOptions } from 'interlock-approvals/mcp';
import type { StrandsAgent, StrandsGraphOptions } from 'interlock-approvals/strands';

const refund: Tool = tool({
  name: 'issue_refund',
  description: 'Refund an order',
  schema: z.object({ orderId: z.string(), amount: z.number() }),
  execute: async ({ orderId, amount }, { idempotencyKey }) => ({ orderId, amount, idempotencyKey }),
});
const policy = definePolicy({
  tools: { issue_refund: [{ id: 'all', tier: 'approve', role: 'supervisor', reason: 'every refund' }] },
});

export async function main(): Promise<ApprovalRequest | undefined> {
  const store = await openStore();
  const il: Interlock = createInterlock({ store, policy });
  const first = await il.listRequests({ status: 'pending', limit: 1 });
  void [refund, createPostgresStore, startService, createNotifier, scriptedModel];
  return first.items[0];
}

/** The AI SDK adapter's declarations type-check in a consumer (with `ai` installed). */
export function aiSdkAgent(il: Interlock): AiSdkAgent {
  return createAiSdkAgent({ name: 'support', interlock: il, tools: {}, generate: () => ({ responseMessages: [] }) });
}

/** The OpenAI Agents adapter's declarations type-check too. */
export type OpenAIAgentsSurface = [OpenAIAgentsAgent['resume'], OpenAIAgentsOptions['schemas']];

/** The LangChain adapter's declarations type-check too. */
export type LangChainSurface = [InterlockInterrupt['interlock'], GraphOutcome<string>];

/** The MCP gateway's declarations type-check too. */
export type McpSurface = McpGatewayOptions['hints'];

/** The Strands adapter's declarations type-check too. */
export type StrandsSurface = [StrandsAgent['resume'], StrandsGraphOptions['ask']];
