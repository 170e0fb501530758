import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { definePolicy, tierRank, type HiddenCharactersMode, type PolicyConfig, type PolicyContext } from './policy.ts';
import { ConfigError } from './errors.ts';

const ctx: PolicyContext = { now: new Date('2024-01-15T12:00:00Z'), app: {}, aggregates: {} };

function policy(hiddenCharacters?: HiddenCharactersMode, extra: Partial<PolicyConfig> = {}) {
  return definePolicy({
    tools: {
      transfer: [
        { id: 'small', tier: 'auto', reason: 'small transfer' },
        {
          id: 'large',
          tier: 'approve',
          role: 'finance',
          when: ({ args }) => Number(args.amount) > 500,
          reason: 'over $500',
          onTimeout: 'approve',
        },
        { id: 'huge', tier: 'block', when: ({ args }) => Number(args.amount) > 10_000, reason: 'over $10,000' },
      ],
    },
    defaults: { role: 'security' },
    ...(hiddenCharacters ? { hiddenCharacters } : {}),
    ...extra,
  });
}

const SPOOF = { to: '\u202e24-CCA', amount: 50 };

describe('policy: hiddenCharacters', () => {
  it("defaults to 'allow': a spoofed call is evaluated like any other (today's behaviour)", () => {
    const p = policy();
    assert.equal(p.hiddenCharacters, 'allow');
    const v = p.evaluate({ tool: 'transfer', args: SPOOF }, ctx);
    assert.equal(v.tier, 'auto');
    assert.equal(v.ruleId, 'small');
  });

  for (const mode of ['approve', 'escalate', 'block'] as const) {
    it(`'${mode}' raises an auto call with hidden characters to ${mode}, under rule hidden-characters, naming the code point`, () => {
      const v = policy(mode).evaluate({ tool: 'transfer', args: SPOOF }, ctx);
      assert.equal(v.tier, mode);
      assert.equal(v.ruleId, 'hidden-characters');
      assert.match(v.reason, /U\+202E RIGHT-TO-LEFT OVERRIDE/);
      assert.match(v.reason, /raised from auto: small transfer/);
      assert.equal(v.trustable, false);
      assert.deepEqual(v.matched, ['hidden-characters', 'small']);
      if (mode === 'block') assert.equal(v.approvalsRequired, 0);
      else {
        assert.equal(v.approvalsRequired, 1);
        assert.equal(v.role, 'security', 'an auto rule has no role: the policy default decides');
      }
    });
  }

  it("keeps the matched rule's role and quorum, and never lets a timeout approve the raised call", () => {
    const v = policy('escalate').evaluate({ tool: 'transfer', args: { to: 'ACC\u200b-42', amount: 900 } }, ctx);
    assert.equal(v.tier, 'escalate');
    assert.equal(v.role, 'finance');
    assert.equal(v.onTimeout, 'reject');
    assert.match(v.reason, /U\+200B ZERO WIDTH SPACE/);
  });

  it("'approve' on an approve-tier call keeps the tier but takes the rule id and can never be trusted", () => {
    const plain = policy('approve').evaluate({ tool: 'transfer', args: { to: 'ACC-42', amount: 900 } }, ctx);
    assert.equal(plain.trustable, true, 'without hidden characters the rule stays trustable');
    const v = policy('approve').evaluate({ tool: 'transfer', args: { to: '\u2066ACC-42\u2069', amount: 900 } }, ctx);
    assert.equal(v.tier, 'approve');
    assert.equal(v.ruleId, 'hidden-characters');
    assert.equal(v.trustable, false);
    assert.match(
      v.reason,
      /\(U\+2066 LEFT-TO-RIGHT ISOLATE, U\+2069 POP DIRECTIONAL ISOLATE\).*; rule "large": over \$500/,
    );
  });

  it('a stricter verdict keeps its tier and rule', () => {
    const v = policy('approve').evaluate({ tool: 'transfer', args: { to: '\u202e', amount: 20_000 } }, ctx);
    assert.equal(v.tier, 'block');
    assert.equal(v.ruleId, 'huge');
  });

  it('finds hidden characters in nested values and in keys, and ignores calls without any', () => {
    const p = policy('block');
    assert.equal(p.evaluate({ tool: 'transfer', args: { amount: 5, meta: [{ note: 'x\u0000' }] } }, ctx).tier, 'block');
    assert.equal(p.evaluate({ tool: 'transfer', args: { amount: 5, ['n\u200dote']: 'x' } }, ctx).tier, 'block');
    assert.equal(
      p.evaluate({ tool: 'transfer', args: { amount: 5, note: 'line\n\ttab — café שלום' } }, ctx).ruleId,
      'small',
    );
  });

  it('property: with hidden characters the tier is never below the mode; without, the mode changes nothing', () => {
    const modes = fc.constantFrom<HiddenCharactersMode>('allow', 'approve', 'escalate', 'block');
    const hidden = fc.constantFrom('\u202e', '\u200b', '\ufeff', '\u0007', '\u2067');
    fc.assert(
      fc.property(
        modes,
        fc.integer({ min: 0, max: 20_000 }),
        fc.string(),
        hidden,
        fc.boolean(),
        (mode, amount, text, h, spoof) => {
          const args = { amount, to: spoof ? `${text}${h}` : text.replaceAll(/[^a-z0-9]/gi, '') };
          const v = policy(mode).evaluate({ tool: 'transfer', args }, ctx);
          const base = policy().evaluate({ tool: 'transfer', args }, ctx);
          if (!spoof || mode === 'allow') return JSON.stringify(v) === JSON.stringify(base);
          return tierRank(v.tier) >= tierRank(mode) && tierRank(v.tier) >= tierRank(base.tier) && v.trustable === false;
        },
      ),
    );
  });

  it('refuses an unknown mode with a message naming the field', () => {
    assert.throws(
      () => policy('warn' as HiddenCharactersMode),
      (err: unknown) => err instanceof ConfigError && /hiddenCharacters/.test(err.message),
    );
  });
});
