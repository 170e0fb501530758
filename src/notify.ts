/**
 * `interlock-approvals/notify`: approval notifications — Slack, e-mail (SMTP) and signed
 * webhooks — routed by role, delivered from an outbox with retries.
 */
export * from './notify/index.ts';
