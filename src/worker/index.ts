export { createWorker, type Worker, type WorkerOptions, type OutboxDelivery } from './worker.ts';
export { DEFAULT_UNKNOWN_AGENT_MS, handleResume, type ResumeOptions, type JobOutcome } from './resume.ts';
export { backoffMs } from '../core/backoff.ts';
