import type { AuditPayloads, AuditType, TypedAuditEvent } from '../core/index.ts';

/**
 * Compose an audit event: the one place events are built for the layers above the engine (agent runs,
 * adapters, the server, the CLI, notifications), typed by kind ({@link AuditPayloads}). They hand it
 * to the engine — with a checkpoint, or `audit.record` — which chains it.
 * @example
 * await interlock.audit.record([auditEvent('raw_viewed', 'cli', { surface: 'cli', what: 'thread messages' }, { threadId })]);
 */
export function auditEvent<K extends AuditType>(
  type: K,
  actor: string,
  payload: AuditPayloads[K],
  about: { threadId?: string | null; requestId?: string | null } = {},
): TypedAuditEvent<K> {
  return {
    type,
    actor,
    ...(about.threadId === undefined ? {} : { threadId: about.threadId }),
    ...(about.requestId === undefined ? {} : { requestId: about.requestId }),
    payload: payload as AuditPayloads[K] & Record<string, unknown>,
  };
}
