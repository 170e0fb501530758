/**
 * Test helpers, published as `interlock/testing`: a scripted model, a manual
 * clock, throwaway stores for both backends, and the scenario harness.
 */
export { scriptedModel, type ScriptedModel, type ScriptStep, type ScriptContext } from './scripted-model.ts';
export { manualClock, type ManualClock } from './clock.ts';
export { allBackends, sqliteBackend, postgresBackend, type BackendInitializer, TEST_DATABASE_URL } from './backends.ts';
