import { describeHidden, findHiddenDeep } from './reveal.ts';
import { tierRank, type Verdict } from './tiers.ts';

/**
 * What the policy does with a call whose arguments hold hidden characters
 * (see reveal.ts): `allow` evaluates it like any other call (the default, for
 * compatibility); `approve` / `escalate` pause it for a person at least at that
 * tier; `block` refuses it. Production should use `escalate` or `block`: a
 * reviewer sees the characters marked, but a bidi override in a payee or an
 * address is rarely legitimate.
 */
export const HIDDEN_CHARACTERS_MODES = ['allow', 'approve', 'escalate', 'block'] as const;
export type HiddenCharactersMode = (typeof HIDDEN_CHARACTERS_MODES)[number];

/** The rule id recorded on verdicts raised because of hidden characters. */
export const HIDDEN_CHARACTERS_RULE = 'hidden-characters';

/**
 * Raise `verdict` to at least `mode` when `args` (strings and keys, deep) hold
 * hidden characters. The raised verdict names the code points, is never
 * trustable (an "approve and trust" must not let a later spoof through), and
 * rejects on timeout whatever the rule said. A verdict already stricter than
 * the mode keeps its tier and rule, but loses trustability too.
 */
export function applyHiddenCharacters(
  verdict: Verdict,
  args: unknown,
  mode: HiddenCharactersMode,
  defaultRole: string | undefined,
): Verdict {
  if (mode === 'allow') return verdict;
  const hidden = findHiddenDeep(args);
  if (hidden.length === 0) return verdict;
  if (tierRank(verdict.tier) > tierRank(mode)) return { ...verdict, trustable: false };
  const what = `the arguments contain hidden characters (${describeHidden(hidden)}) that can make a reviewer read something other than what will run`;
  const interrupting = mode === 'approve' || mode === 'escalate';
  return {
    ...verdict,
    tier: mode,
    ruleId: HIDDEN_CHARACTERS_RULE,
    reason:
      verdict.tier === mode
        ? `${what}; rule "${verdict.ruleId}": ${verdict.reason}`
        : `${what} (raised from ${verdict.tier}: ${verdict.reason})`,
    role: interrupting ? (verdict.role ?? defaultRole ?? null) : verdict.role,
    approvalsRequired: interrupting ? Math.max(1, verdict.approvalsRequired) : 0,
    onTimeout: 'reject',
    escalateTo: null,
    trustable: false,
    matched: [HIDDEN_CHARACTERS_RULE, ...verdict.matched],
  };
}
