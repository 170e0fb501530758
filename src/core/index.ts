export * from './errors.ts';
export * from './ids.ts';
export * from './canonical.ts';
export * from './duration.ts';
export * from './policy.ts';
export * from './redact.ts';
export * from './audit-chain.ts';
export * from './approval.ts';
