export { createWorker, type Worker, type WorkerOptions, type OutboxDelivery } from './worker.ts';
export { DEFAULT_UNKNOWN_AGENT_MS } from './resume.ts';
