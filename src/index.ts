/**
 * Interlock: durable human approval for TypeScript AI agents.
 *
 * Layers (imports point down only): agent → engine → store → core.
 */
export * from './core/index.ts';
export * from './store/index.ts';
export * from './engine/index.ts';
export * from './agent/index.ts';
export * from './worker/index.ts';
export * from './notify/index.ts';
export * from './server/index.ts';
export * from './web/index.ts';
export * from './service/index.ts';
