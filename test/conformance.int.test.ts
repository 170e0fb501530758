// The integration conformance suite (interlock/testing) against every door, on SQLite and PostgreSQL.
import { integrationConformance } from '../src/testing/index.ts';
import { nativeDriver } from './support/conformance/native.ts';
import { aiSdkDriver } from './support/conformance/ai-sdk.ts';
import { openAIAgentsDriver } from './support/conformance/openai-agents.ts';
import { langChainDriver } from './support/conformance/langchain.ts';
import { mcpDriver } from './support/conformance/mcp.ts';
import { langGraphGateDriver } from './support/conformance/langgraph-gate.ts';

for (const driver of [nativeDriver, aiSdkDriver, openAIAgentsDriver, langChainDriver, langGraphGateDriver, mcpDriver])
  integrationConformance(driver);
