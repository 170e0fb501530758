/** The reviewer web UI: sessions, pages, batch approval, timelines, metrics charts. */
export { createWebUi, type WebUiOptions } from './web-ui.ts';
export { createSessions, DEFAULT_SESSION_TTL_MS, type Sessions, type SessionOptions } from './sessions.ts';
export { batchDigest, type BatchItem } from './batch-digest.ts';
export { batchOptionsFromEnv, type BatchOptions } from './batch-options.ts';
export { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from './security-headers.ts';
