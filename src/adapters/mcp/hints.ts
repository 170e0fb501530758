import type { GateVerdict } from '../../engine/index.ts';
import type { CallCheck } from '../core/index.ts';
import type { McpGatewayOptions, Route } from './types.ts';

/** A tool the policy does not know gets its verdict from its annotations, when `hints` says how. */
export function hinted(hints: McpGatewayOptions['hints'], route: Route, c: CallCheck): CallCheck {
  if (c.kind !== 'block' || c.verdict.ruleId !== 'no-policy' || !hints) return c;
  const readOnly = route.tool.annotations?.readOnlyHint === true;
  const tier = (readOnly ? hints.readOnly : hints.other) ?? 'block';
  const hint = readOnly
    ? 'readOnlyHint'
    : route.tool.annotations?.destructiveHint
      ? 'destructiveHint'
      : 'no read-only hint';
  const verdict: GateVerdict = {
    ...c.verdict,
    tier,
    ruleId: `hint:${readOnly ? 'read-only' : 'other'}`,
    reason: `no rule for ${route.name}; the upstream marks it ${hint}`,
    role: tier === 'approve' ? (hints.role ?? 'supervisor') : null,
    approvalsRequired: tier === 'approve' ? 1 : 0,
    trustable: false,
    matched: [],
  };
  if (tier === 'block')
    return { kind: 'block', verdict, message: `Blocked by policy: ${verdict.reason}. Do not retry this action.` };
  return tier === 'approve' ? { kind: 'ask', verdict } : { kind: 'run', verdict };
}
