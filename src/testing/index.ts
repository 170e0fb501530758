/**
 * Test helpers, published as `interlock-approvals/testing`: a scripted model, a manual
 * clock, throwaway stores for both backends, and the scenario harness.
 */
export {
  scriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptStep,
  type ScriptContext,
} from './scripted-model.ts';
export { manualClock, type ManualClock } from './clock.ts';
export { allBackends, sqliteBackend, postgresBackend, type BackendInitializer, TEST_DATABASE_URL } from './backends.ts';
export {
  scenario,
  type Scenario,
  type ScenarioOptions,
  type ScenarioAgentOptions,
  type ScenarioDecision,
} from './scenario.ts';
export {
  Turn,
  type InterruptMatch,
  type ToolRunMatch,
  type CheckpointMatch,
  type NotifiedMatch,
} from './scenario-turn.ts';
export type { ToolRun, ModelPrompt } from './scenario-recorder.ts';
export { FakePayments, type PaymentEffect } from './fake-payments.ts';
export { recordingChannel } from './fake-channel.ts';
export { startFakeHttpServer } from './fake-http.ts';
export {
  startFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicBlock,
  type FakeAnthropicRequest,
  type FakeAnthropicResponder,
} from './fake-anthropic.ts';
export { integrationConformance, type ConformanceOptions } from './conformance/suite.ts';
export {
  CONFORMANCE_POLICY,
  REVIEWERS as CONFORMANCE_REVIEWERS,
  planCalls,
  conformanceWorld,
  type ConformanceCall,
  type ConformanceEffect,
  type ConformanceWorld,
  type IntegrationDriver,
} from './conformance/world.ts';
