import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  TIERS,
  applyTriage,
  definePolicy,
  isInterrupting,
  maxTier,
  tierRank,
  type PolicyConfig,
  type PolicyContext,
  type Rule,
  type Tier,
  type TriageResult,
  type Verdict,
} from './policy.ts';
import { withinHours } from './duration.ts';
import { ConfigError, InterlockUsageError } from './errors.ts';

const NOON_UTC = new Date('2024-01-15T12:00:00Z');

function ctx(over: Partial<PolicyContext> = {}): PolicyContext {
  return { now: NOON_UTC, app: {}, aggregates: {}, ...over };
}

/** Assert that definePolicy refuses `config` with a ConfigError whose message matches `pattern`. */
function assertConfigError(config: unknown, pattern: RegExp): ConfigError {
  let caught: unknown;
  assert.throws(
    () => definePolicy(config as PolicyConfig),
    (err: unknown) => {
      caught = err;
      return true;
    },
  );
  assert.ok(caught instanceof ConfigError, `expected ConfigError, got ${String(caught)}`);
  assert.ok(caught instanceof InterlockUsageError);
  assert.equal(caught.code, 'invalid_config');
  assert.equal(caught.name, 'ConfigError');
  assert.match(caught.message, pattern);
  return caught;
}

const tierArb = fc.constantFrom<Tier>(...TIERS);

describe('tiers', () => {
  it('are ordered auto < notify < approve < escalate < block', () => {
    assert.deepEqual(TIERS, ['auto', 'notify', 'approve', 'escalate', 'block']);
    for (let i = 1; i < TIERS.length; i++) assert.ok(tierRank(TIERS[i]!) > tierRank(TIERS[i - 1]!));
    assert.equal(tierRank('auto'), 0);
    assert.equal(tierRank('block'), 4);
  });

  it('only approve and escalate interrupt', () => {
    assert.deepEqual(
      TIERS.filter((t) => isInterrupting(t)),
      ['approve', 'escalate'],
    );
  });

  it('maxTier returns the more restrictive tier', () => {
    assert.equal(maxTier('auto', 'approve'), 'approve');
    assert.equal(maxTier('block', 'notify'), 'block');
    assert.equal(maxTier('escalate', 'escalate'), 'escalate');
  });

  it('maxTier is commutative, associative, idempotent and never lower than either input (property)', () => {
    fc.assert(
      fc.property(tierArb, tierArb, tierArb, (a, b, c) => {
        assert.equal(maxTier(a, b), maxTier(b, a));
        assert.equal(maxTier(maxTier(a, b), c), maxTier(a, maxTier(b, c)));
        assert.equal(maxTier(a, a), a);
        assert.ok(tierRank(maxTier(a, b)) >= tierRank(a));
        assert.ok(tierRank(maxTier(a, b)) >= tierRank(b));
        assert.ok(maxTier(a, b) === a || maxTier(a, b) === b);
      }),
    );
  });
});

describe('definePolicy: the documented example', () => {
  const policy = definePolicy({
    tools: {
      look_up_order: [{ id: 'lookup', tier: 'auto', reason: 'read-only' }],
      issue_refund: [
        { id: 'small', tier: 'auto', reason: 'small refund' },
        {
          id: 'large',
          tier: 'approve',
          role: 'supervisor',
          timeout: '30m',
          when: ({ args }) => Number(args.amount) > 500,
          reason: 'refund over $500',
        },
      ],
    },
  });

  it('lets read-only calls through', () => {
    const v = policy.evaluate({ tool: 'look_up_order', args: { orderId: 'ORD-999' } }, ctx());
    assert.equal(v.tier, 'auto');
    assert.equal(v.ruleId, 'lookup');
    assert.equal(v.reason, 'read-only');
    assert.equal(v.role, null);
    assert.equal(v.approvalsRequired, 0);
    assert.equal(v.trustable, false);
    assert.deepEqual(v.matched, ['lookup']);
    assert.equal(v.raisedBy, undefined);
  });

  it('lets a small refund through', () => {
    const v = policy.evaluate({ tool: 'issue_refund', args: { amount: 49 } }, ctx());
    assert.equal(v.tier, 'auto');
    assert.equal(v.ruleId, 'small');
    assert.deepEqual(v.matched, ['small']);
  });

  it('pauses a large refund for a supervisor', () => {
    const v = policy.evaluate({ tool: 'issue_refund', args: { amount: 850 } }, ctx());
    assert.deepEqual(v, {
      tier: 'approve',
      ruleId: 'large',
      reason: 'refund over $500',
      role: 'supervisor',
      approvalsRequired: 1,
      timeoutMs: 30 * 60_000,
      onTimeout: 'reject',
      escalateTo: null,
      trustable: true,
      matched: ['large', 'small'],
    } satisfies Verdict);
  });

  it('treats the boundary as the rule says (500 is not over 500)', () => {
    assert.equal(policy.evaluate({ tool: 'issue_refund', args: { amount: 500 } }, ctx()).tier, 'auto');
    assert.equal(policy.evaluate({ tool: 'issue_refund', args: { amount: 500.01 } }, ctx()).tier, 'approve');
  });
});

describe('definePolicy: rule selection', () => {
  it('the most restrictive matching rule wins, whatever the declaration order', () => {
    const policy = definePolicy({
      tools: {
        deploy: [
          { id: 'default', tier: 'auto', reason: 'default' },
          { id: 'prod', tier: 'approve', role: 'sre', when: ({ args }) => args.env === 'prod', reason: 'production' },
          { id: 'friday', tier: 'block', when: ({ ctx }) => ctx.now.getUTCDay() === 5, reason: 'no deploys on Friday' },
          { id: 'notify-all', tier: 'notify', reason: 'tell the channel' },
        ],
      },
    });
    const monday = ctx({ now: new Date('2024-01-15T12:00:00Z') });
    const friday = ctx({ now: new Date('2024-01-19T12:00:00Z') });
    const staging = { tool: 'deploy', args: { env: 'staging' } };
    const prod = { tool: 'deploy', args: { env: 'prod' } };

    const v1 = policy.evaluate(staging, monday);
    assert.equal(v1.tier, 'notify');
    assert.equal(v1.ruleId, 'notify-all');
    assert.deepEqual(v1.matched, ['notify-all', 'default']);

    const v2 = policy.evaluate(prod, monday);
    assert.equal(v2.tier, 'approve');
    assert.equal(v2.ruleId, 'prod');
    assert.deepEqual(v2.matched, ['prod', 'notify-all', 'default']);

    const v3 = policy.evaluate(prod, friday);
    assert.equal(v3.tier, 'block');
    assert.equal(v3.ruleId, 'friday');
    assert.equal(v3.reason, 'no deploys on Friday');
    assert.deepEqual(v3.matched, ['friday', 'prod', 'notify-all', 'default']);
    assert.equal(v3.approvalsRequired, 0);
    assert.equal(v3.trustable, false);
  });

  it('a tie goes to the rule declared first', () => {
    const policy = definePolicy({
      tools: {
        send_email: [
          {
            id: 'legal',
            tier: 'approve',
            role: 'legal',
            when: ({ args }) => String(args.body).includes('lawsuit'),
            reason: 'legal wording',
          },
          {
            id: 'external',
            tier: 'approve',
            role: 'support-lead',
            when: ({ args }) => !String(args.to).endsWith('@acme.test'),
            reason: 'external recipient',
          },
          { id: 'default', tier: 'auto', reason: 'internal mail' },
        ],
      },
    });
    const both = policy.evaluate(
      { tool: 'send_email', args: { to: 'x@customer.test', body: 'about the lawsuit' } },
      ctx(),
    );
    assert.equal(both.ruleId, 'legal');
    assert.equal(both.role, 'legal');
    assert.deepEqual(both.matched, ['legal', 'external', 'default']);

    const onlyExternal = policy.evaluate({ tool: 'send_email', args: { to: 'x@customer.test', body: 'hello' } }, ctx());
    assert.equal(onlyExternal.ruleId, 'external');
    assert.equal(onlyExternal.role, 'support-lead');
  });

  it('tier, winner and matched list follow "most restrictive, then first declared" for any rule set (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tier: tierArb, matches: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        (specs) => {
          const rules: Rule[] = specs.map((s, i) => ({
            id: `r${i}`,
            tier: s.tier,
            role: 'ops',
            when: () => s.matches,
            reason: `rule ${i}`,
          }));
          const v = definePolicy({ tools: { t: rules } }).evaluate({ tool: 't', args: {} }, ctx());
          const matching = specs.map((s, i) => ({ ...s, id: `r${i}` })).filter((s) => s.matches);
          if (matching.length === 0) {
            assert.equal(v.tier, 'block');
            assert.equal(v.ruleId, 'no-match');
            assert.deepEqual(v.matched, []);
            return;
          }
          const top = Math.max(...matching.map((s) => tierRank(s.tier)));
          const winner = matching.find((s) => tierRank(s.tier) === top)!;
          assert.equal(v.tier, winner.tier);
          assert.equal(v.ruleId, winner.id);
          assert.equal(v.reason, `rule ${winner.id.slice(1)}`);
          // Most restrictive first; ties in declaration order.
          const expected = [...matching].sort((a, b) => tierRank(b.tier) - tierRank(a.tier)).map((s) => s.id);
          assert.deepEqual(v.matched, expected);
          assert.equal(v.approvalsRequired, isInterrupting(v.tier) ? 1 : 0);
          assert.equal(v.trustable, v.tier === 'approve');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a rule without `when` always matches', () => {
    const policy = definePolicy({ tools: { t: [{ id: 'always', tier: 'notify', reason: 'always' }] } });
    assert.equal(policy.evaluate({ tool: 't', args: { anything: true } }, ctx()).ruleId, 'always');
  });

  it('gives `when` and a reason function the tool, args and context', () => {
    const seen: unknown[] = [];
    const policy = definePolicy({
      tools: {
        cancel_subscription: [
          {
            id: 'vip',
            tier: 'approve',
            role: 'account-manager',
            when: (input) => {
              seen.push(input);
              return input.ctx.app.customerTier === 'vip';
            },
            reason: ({ tool, args, ctx: c }) =>
              `${tool} for ${String(args.customerId)} (${String(c.app.customerTier)}) by ${c.proposer ?? '?'}`,
          },
          { id: 'default', tier: 'auto', reason: 'self-serve' },
        ],
      },
    });
    const c = ctx({ app: { customerTier: 'vip' }, proposer: 'agent:support', threadId: 'thr_1' });
    const v = policy.evaluate({ tool: 'cancel_subscription', args: { customerId: 'C-1' } }, c);
    assert.equal(v.reason, 'cancel_subscription for C-1 (vip) by agent:support');
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0], { tool: 'cancel_subscription', args: { customerId: 'C-1' }, ctx: c });

    const regular = policy.evaluate(
      { tool: 'cancel_subscription', args: { customerId: 'C-2' } },
      ctx({ app: { customerTier: 'basic' } }),
    );
    assert.equal(regular.tier, 'auto');
  });

  it('does not call the reason function of a rule that did not win', () => {
    let calls = 0;
    const policy = definePolicy({
      tools: {
        t: [
          { id: 'low', tier: 'notify', reason: () => `${++calls}` },
          { id: 'high', tier: 'approve', role: 'ops', reason: 'high' },
        ],
      },
    });
    assert.equal(policy.evaluate({ tool: 't', args: {} }, ctx()).reason, 'high');
    assert.equal(calls, 0);
  });
});

describe('definePolicy: tools and calls without a rule are blocked', () => {
  const policy = definePolicy({
    tools: {
      look_up_order: [{ id: 'lookup', tier: 'auto', reason: 'read-only' }],
      empty_list: [],
      empty_object: { rules: [] },
      only_conditional: [
        { id: 'big', tier: 'approve', role: 'ops', when: ({ args }) => Number(args.n) > 10, reason: 'big' },
      ],
    },
  });

  it('blocks a tool without policy, with a clear reason', () => {
    const v = policy.evaluate({ tool: 'delete_database', args: {} }, ctx());
    assert.deepEqual(v, {
      tier: 'block',
      ruleId: 'no-policy',
      reason: v.reason,
      role: null,
      approvalsRequired: 0,
      timeoutMs: 0,
      onTimeout: 'reject',
      escalateTo: null,
      trustable: false,
      matched: [],
    } satisfies Verdict);
    assert.match(v.reason, /no policy for tool "delete_database"/);
    assert.match(v.reason, /add rules/);
  });

  it('blocks a tool whose rule list is empty', () => {
    assert.equal(policy.evaluate({ tool: 'empty_list', args: {} }, ctx()).ruleId, 'no-policy');
    assert.equal(policy.evaluate({ tool: 'empty_object', args: {} }, ctx()).ruleId, 'no-policy');
  });

  it('does not find policies on Object.prototype', () => {
    for (const tool of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const v = policy.evaluate({ tool, args: {} }, ctx());
      assert.equal(v.tier, 'block', tool);
      assert.equal(v.ruleId, 'no-policy', tool);
    }
  });

  it('blocks a call no rule matches, and says how to fix it', () => {
    const v = policy.evaluate({ tool: 'only_conditional', args: { n: 1 } }, ctx());
    assert.equal(v.tier, 'block');
    assert.equal(v.ruleId, 'no-match');
    assert.match(v.reason, /no rule of tool "only_conditional" matched/);
    assert.match(v.reason, /without "when"/);
    assert.deepEqual(v.matched, []);
    assert.equal(policy.evaluate({ tool: 'only_conditional', args: { n: 11 } }, ctx()).tier, 'approve');
  });

  it('reports no aggregates for unknown tools and array-form tools', () => {
    assert.deepEqual(policy.aggregatesFor('delete_database'), {});
    assert.deepEqual(policy.aggregatesFor('look_up_order'), {});
    assert.deepEqual(policy.aggregatesFor('constructor'), {});
  });
});

describe('definePolicy: verdict fields and defaults', () => {
  it('defaults: 24 h timeout, reject on timeout, one approval, no escalation', () => {
    const v = definePolicy({ tools: { t: [{ id: 'r', tier: 'approve', role: 'ops', reason: 'x' }] } }).evaluate(
      { tool: 't', args: {} },
      ctx(),
    );
    assert.equal(v.timeoutMs, 24 * 3_600_000);
    assert.equal(v.onTimeout, 'reject');
    assert.equal(v.approvalsRequired, 1);
    assert.equal(v.escalateTo, null);
  });

  it('policy defaults apply to rules that do not set their own', () => {
    const policy = definePolicy({
      defaults: { role: 'support-lead', timeout: '2h', onTimeout: 'abort' },
      tools: {
        t: {
          rules: [
            {
              id: 'own',
              tier: 'approve',
              role: 'finance',
              timeout: 90_000,
              onTimeout: 'approve',
              when: ({ args }) => args.own === true,
              reason: 'own',
            },
            { id: 'inherit', tier: 'approve', reason: 'inherit' },
          ],
        },
      },
    });
    const own = policy.evaluate({ tool: 't', args: { own: true } }, ctx());
    assert.equal(own.role, 'finance');
    assert.equal(own.timeoutMs, 90_000);
    assert.equal(own.onTimeout, 'approve');
    const inherit = policy.evaluate({ tool: 't', args: {} }, ctx());
    assert.equal(inherit.role, 'support-lead');
    assert.equal(inherit.timeoutMs, 2 * 3_600_000);
    assert.equal(inherit.onTimeout, 'abort');
  });

  it('a notify rule carries its role, but needs no approvals', () => {
    const v = definePolicy({
      tools: { t: [{ id: 'n', tier: 'notify', role: 'ops', approvals: 3, reason: 'fyi' }] },
    }).evaluate({ tool: 't', args: {} }, ctx());
    assert.equal(v.tier, 'notify');
    assert.equal(v.role, 'ops');
    assert.equal(v.approvalsRequired, 0);
  });

  it('carries the quorum of an interrupting rule', () => {
    const policy = definePolicy({
      tools: {
        wire: [{ id: 'two-man', tier: 'escalate', role: 'treasury', approvals: 2, reason: 'wire transfer' }],
      },
    });
    const v = policy.evaluate({ tool: 'wire', args: {} }, ctx());
    assert.equal(v.tier, 'escalate');
    assert.equal(v.approvalsRequired, 2);
  });

  it('only approve rules are trustable, unless they opt out', () => {
    const policy = definePolicy({
      tools: {
        a: [{ id: 'a', tier: 'approve', role: 'ops', reason: 'a' }],
        b: [{ id: 'b', tier: 'approve', role: 'ops', trustable: false, reason: 'b' }],
        c: [{ id: 'c', tier: 'escalate', role: 'ops', trustable: true, reason: 'c' }],
        d: [{ id: 'd', tier: 'auto', trustable: true, reason: 'd' }],
        e: [{ id: 'e', tier: 'approve', role: 'ops', trustable: true, reason: 'e' }],
      },
    });
    const trust = (tool: string) => policy.evaluate({ tool, args: {} }, ctx()).trustable;
    assert.equal(trust('a'), true);
    assert.equal(trust('b'), false);
    assert.equal(trust('c'), false);
    assert.equal(trust('d'), false);
    assert.equal(trust('e'), true);
  });

  it('resolves escalation targets: one approval and the rule timeout unless given', () => {
    const policy = definePolicy({
      tools: {
        t: [
          {
            id: 'plain',
            tier: 'approve',
            role: 'ops',
            timeout: '30m',
            onTimeout: 'escalate',
            escalateTo: { role: 'manager' },
            when: ({ args }) => args.k === 'plain',
            reason: 'p',
          },
          {
            id: 'full',
            tier: 'approve',
            role: 'ops',
            onTimeout: 'escalate',
            escalateTo: { role: 'director', approvals: 2, timeout: '4h' },
            when: ({ args }) => args.k === 'full',
            reason: 'f',
          },
        ],
      },
    });
    const plain = policy.evaluate({ tool: 't', args: { k: 'plain' } }, ctx());
    assert.equal(plain.onTimeout, 'escalate');
    assert.deepEqual(plain.escalateTo, { role: 'manager', approvals: 1, timeoutMs: 30 * 60_000 });
    const full = policy.evaluate({ tool: 't', args: { k: 'full' } }, ctx());
    assert.deepEqual(full.escalateTo, { role: 'director', approvals: 2, timeoutMs: 4 * 3_600_000 });
  });

  it('exposes the triage evaluator it was given', () => {
    const triage = (): TriageResult | undefined => undefined;
    assert.equal(definePolicy({ tools: {}, triage }).triage, triage);
    assert.equal(definePolicy({ tools: {} }).triage, undefined);
  });

  it('does not mutate the configuration', () => {
    const config: PolicyConfig = {
      defaults: { role: 'ops' },
      tools: {
        t: { rules: [{ id: 'r', tier: 'approve', reason: 'x' }], aggregates: { n: { fn: 'count', window: '1h' } } },
      },
    };
    const before = JSON.stringify(config);
    const policy = definePolicy(config);
    policy.evaluate({ tool: 't', args: {} }, ctx());
    assert.equal(JSON.stringify(config), before);
  });
});

describe('definePolicy: aggregates', () => {
  const policy = definePolicy({
    tools: {
      issue_refund: {
        aggregates: {
          refunded24h: { fn: 'sum', field: 'amount', groupBy: 'customerId', window: '24h' },
          failures1h: { fn: 'count', window: '1h', outcome: 'failed' },
          lookups: { fn: 'count', window: 60_000, tool: 'look_up_order' },
        },
        rules: [
          { id: 'default', tier: 'auto', reason: 'small refund' },
          {
            id: 'velocity',
            tier: 'escalate',
            role: 'finance',
            when: ({ args, ctx: c }) => (c.aggregates.refunded24h ?? 0) + Number(args.amount) > 100,
            reason: ({ args, ctx: c }) =>
              `refunds to ${String(args.customerId)} would reach $${(c.aggregates.refunded24h ?? 0) + Number(args.amount)} in 24 h`,
          },
          {
            id: 'flaky',
            tier: 'block',
            when: ({ ctx: c }) => (c.aggregates.failures1h ?? 0) >= 3,
            reason: 'refunds keep failing',
          },
        ],
      },
    },
  });

  it('declares them with their window in milliseconds', () => {
    assert.deepEqual(policy.aggregatesFor('issue_refund'), {
      refunded24h: { fn: 'sum', field: 'amount', groupBy: 'customerId', window: '24h', windowMs: 86_400_000 },
      failures1h: { fn: 'count', window: '1h', outcome: 'failed', windowMs: 3_600_000 },
      lookups: { fn: 'count', window: 60_000, tool: 'look_up_order', windowMs: 60_000 },
    });
  });

  it('three $49 refunds: the third one (98 prior + 49 > 100) escalates', () => {
    const call = { tool: 'issue_refund', args: { customerId: 'C-7', amount: 49 } };
    let prior = 0;
    const tiers: Tier[] = [];
    for (let i = 0; i < 3; i++) {
      const v = policy.evaluate(call, ctx({ aggregates: { refunded24h: prior, failures1h: 0 } }));
      tiers.push(v.tier);
      if (v.tier === 'auto') prior += 49;
      if (i === 2) {
        assert.equal(v.ruleId, 'velocity');
        assert.equal(v.role, 'finance');
        assert.equal(v.reason, 'refunds to C-7 would reach $147 in 24 h');
      }
    }
    assert.deepEqual(tiers, ['auto', 'auto', 'escalate']);
  });

  it('a missing aggregate value is up to the rule (here: treated as zero)', () => {
    assert.equal(
      policy.evaluate({ tool: 'issue_refund', args: { customerId: 'C-7', amount: 49 } }, ctx()).tier,
      'auto',
    );
  });

  it('a failure-count aggregate can block outright', () => {
    const v = policy.evaluate(
      { tool: 'issue_refund', args: { customerId: 'C-7', amount: 200 } },
      ctx({ aggregates: { refunded24h: 0, failures1h: 3 } }),
    );
    assert.equal(v.tier, 'block');
    assert.equal(v.ruleId, 'flaky');
    assert.deepEqual(v.matched, ['flaky', 'velocity', 'default']);
  });
});

describe('definePolicy: time of day', () => {
  const policy = definePolicy({
    tools: {
      send_email: [
        { id: 'business-hours', tier: 'auto', reason: 'during business hours' },
        {
          id: 'after-hours',
          tier: 'approve',
          role: 'support-lead',
          when: ({ ctx: c }) => !withinHours(c.now, 9, 18, 'Europe/Paris'),
          reason: 'outside business hours in Paris',
        },
      ],
    },
  });
  const at = (iso: string) => policy.evaluate({ tool: 'send_email', args: {} }, ctx({ now: new Date(iso) })).tier;

  it('lets mail through during Paris business hours', () => {
    assert.equal(at('2024-01-15T08:00:00Z'), 'auto'); // 09:00 CET
    assert.equal(at('2024-01-15T16:59:00Z'), 'auto'); // 17:59 CET
    assert.equal(at('2024-07-15T15:30:00Z'), 'auto'); // 17:30 CEST
  });

  it('pauses mail outside them, in the zone of the rule rather than UTC', () => {
    assert.equal(at('2024-01-15T07:59:00Z'), 'approve'); // 08:59 CET
    assert.equal(at('2024-01-15T17:00:00Z'), 'approve'); // 18:00 CET
    assert.equal(at('2024-07-15T16:30:00Z'), 'approve'); // 18:30 CEST, though only 16:30 UTC
    assert.equal(at('2024-01-15T23:00:00Z'), 'approve');
  });
});

describe('definePolicy: invalid configurations raise ConfigError', () => {
  const ok: Rule = { id: 'ok', tier: 'auto', reason: 'ok' };

  it('an approve or escalate rule without a role (and no default role)', () => {
    assertConfigError(
      { tools: { t: [{ id: 'r', tier: 'approve', reason: 'x' }] } },
      /tools\.t rule "r": tier "approve" needs "role"/,
    );
    assertConfigError({ tools: { t: [{ id: 'r', tier: 'escalate', reason: 'x' }] } }, /tier "escalate" needs "role"/);
    assertConfigError(
      { defaults: { role: '' }, tools: { t: [{ id: 'r', tier: 'approve', reason: 'x' }] } },
      /needs "role"/,
    );
    assertConfigError({ tools: { t: [{ id: 'r', tier: 'approve', role: '', reason: 'x' }] } }, /role/);
  });

  it('but a default role satisfies it, and other tiers need none', () => {
    assert.doesNotThrow(() =>
      definePolicy({ defaults: { role: 'ops' }, tools: { t: [{ id: 'r', tier: 'approve', reason: 'x' }] } }),
    );
    for (const tier of ['auto', 'notify', 'block'] as const) {
      assert.doesNotThrow(() => definePolicy({ tools: { t: [{ id: 'r', tier, reason: 'x' }] } }), tier);
    }
  });

  it('onTimeout "escalate" without escalateTo, on the rule or through the defaults', () => {
    assertConfigError(
      { tools: { t: [{ id: 'r', tier: 'approve', role: 'ops', onTimeout: 'escalate', reason: 'x' }] } },
      /tools\.t rule "r": onTimeout "escalate" needs "escalateTo"/,
    );
    assertConfigError(
      { defaults: { onTimeout: 'escalate' }, tools: { t: [{ id: 'r', tier: 'approve', role: 'ops', reason: 'x' }] } },
      /needs "escalateTo"/,
    );
    assertConfigError(
      {
        tools: {
          t: [{ id: 'r', tier: 'approve', role: 'ops', onTimeout: 'escalate', escalateTo: { role: '' }, reason: 'x' }],
        },
      },
      /escalateTo/,
    );
  });

  it('a sum aggregate without field', () => {
    const err = assertConfigError(
      { tools: { t: { rules: [ok], aggregates: { total: { fn: 'sum', window: '24h' } } } } },
      /"sum" aggregate needs "field"/,
    );
    assert.match(err.message, /tools\.t\.aggregates\.total/);
    assert.doesNotThrow(() =>
      definePolicy({ tools: { t: { rules: [ok], aggregates: { n: { fn: 'count', window: '24h' } } } } }),
    );
  });

  it('a bad duration anywhere', () => {
    const rule = (extra: Record<string, unknown>) => ({
      tools: { t: [{ id: 'r', tier: 'approve', role: 'ops', reason: 'x', ...extra }] },
    });
    assertConfigError(rule({ timeout: '30 minutes' }), /tools\.t\.0\.timeout/);
    assertConfigError(rule({ timeout: '1w' }), /timeout/);
    assertConfigError(rule({ timeout: '-5m' }), /timeout/);
    assertConfigError(rule({ timeout: -1 }), /timeout/);
    assertConfigError(rule({ timeout: Infinity }), /timeout/);
    assertConfigError(rule({ timeout: NaN }), /timeout/);
    assertConfigError(
      rule({ onTimeout: 'escalate', escalateTo: { role: 'm', timeout: 'later' } }),
      /escalateTo\.timeout/,
    );
    assertConfigError({ defaults: { timeout: 'soon' }, tools: {} }, /defaults\.timeout/);
    assertConfigError(
      { tools: { t: { rules: [ok], aggregates: { n: { fn: 'count', window: '24 h' } } } } },
      /aggregates\.n\.window/,
    );
  });

  it('a duplicate rule id within one tool (ids may repeat across tools)', () => {
    assertConfigError({ tools: { t: [ok, { ...ok, tier: 'notify' }] } }, /tools\.t rule "ok": duplicate rule id/);
    assert.doesNotThrow(() => definePolicy({ tools: { a: [ok], b: [ok] } }));
  });

  it('unknown keys at every level', () => {
    assertConfigError({ tools: { t: [{ ...ok, roles: ['ops'] }] } }, /roles/);
    assertConfigError({ tools: { t: { rules: [ok], agregates: {} } } }, /tools\.t/);
    assertConfigError({ tools: {}, tool: {} }, /tool/);
    assertConfigError({ tools: {}, defaults: { approvals: 2 } }, /approvals/);
    assertConfigError(
      { tools: { t: { rules: [ok], aggregates: { n: { fn: 'count', window: '1h', where: 'x' } } } } },
      /where/,
    );
    assertConfigError(
      {
        tools: {
          t: [{ ...ok, tier: 'approve', role: 'ops', onTimeout: 'escalate', escalateTo: { role: 'm', when: 1 } }],
        },
      },
      /when/,
    );
  });

  it('other malformed rules', () => {
    // Named precisely, not as a bare "tools.t: Invalid input".
    assertConfigError({ tools: { t: [{ ...ok, tier: 'deny' }] } }, /tools\.t\.0\.tier: Invalid option/);
    assertConfigError(
      { tools: { t: { rules: [{ ...ok, tier: 'deny' }] } } },
      /tools\.t\.rules\.0\.tier: Invalid option/,
    );
    assertConfigError({ tools: { t: [{ ...ok, id: '' }] } }, /every rule needs an id/);
    assertConfigError({ tools: { t: [{ tier: 'auto', reason: 'x' }] } }, /id/);
    assertConfigError({ tools: { t: [{ ...ok, reason: '' }] } }, /reason/);
    assertConfigError({ tools: { t: [{ id: 'r', tier: 'auto' }] } }, /reason/);
    assertConfigError({ tools: { t: [{ ...ok, when: 'amount > 5' }] } }, /when: must be a function/);
    assertConfigError({ tools: { t: [{ ...ok, approvals: 0 }] } }, /approvals/);
    assertConfigError({ tools: { t: [{ ...ok, approvals: 1.5 }] } }, /approvals/);
    assertConfigError({ tools: { t: [{ ...ok, approvals: 21 }] } }, /approvals/);
    assertConfigError({ tools: { t: [{ ...ok, onTimeout: 'ignore' }] } }, /onTimeout/);
    assertConfigError({ tools: { t: [{ ...ok, trustable: 'yes' }] } }, /trustable/);
    assertConfigError({ tools: { t: 'auto' } }, /tools\.t/);
    assertConfigError({ tools: {}, triage: 'strict' }, /triage: must be a function/);
    assertConfigError({}, /tools/);
  });

  it('lists every schema problem at once, in details.issues', () => {
    const err = assertConfigError(
      { tools: { a: [{ ...ok, tier: 'deny' }], b: [{ ...ok, timeout: 'soon' }] }, defaults: { colour: 'red' } },
      /^Invalid policy:/,
    );
    const issues = err.details.issues as string[];
    assert.ok(Array.isArray(issues));
    assert.ok(issues.length >= 3, issues.join('\n'));
    assert.ok(
      issues.some((i) => i.startsWith('tools.a.0.tier')),
      issues.join('\n'),
    );
    assert.ok(
      issues.some((i) => i.startsWith('tools.b.0.timeout')),
      issues.join('\n'),
    );
    assert.ok(
      issues.some((i) => i.includes('colour')),
      issues.join('\n'),
    );
  });
});

function verdictOf(tier: Tier, over: Partial<Verdict> = {}): Verdict {
  return {
    tier,
    ruleId: 'rule',
    reason: 'because',
    role: isInterrupting(tier) ? 'ops' : null,
    approvalsRequired: isInterrupting(tier) ? 1 : 0,
    timeoutMs: 60_000,
    onTimeout: 'reject',
    escalateTo: null,
    trustable: tier === 'approve',
    matched: ['rule'],
    ...over,
  };
}

describe('applyTriage', () => {
  it('returns the verdict unchanged when triage has nothing to say', () => {
    const v = verdictOf('approve');
    assert.equal(applyTriage(v, undefined, 'fallback'), v);
  });

  it('never lowers a tier, and ignores a result of the same tier', () => {
    const v = verdictOf('escalate', { role: 'finance' });
    assert.equal(applyTriage(v, { tier: 'auto', reason: 'looks safe' }, 'fallback'), v);
    assert.equal(applyTriage(v, { tier: 'approve', reason: 'looks fine', role: 'intern' }, 'fallback'), v);
    assert.equal(applyTriage(v, { tier: 'escalate', reason: 'same', role: 'other' }, 'fallback'), v);
  });

  it('raises a tier, keeps the rule and explains both reasons', () => {
    const v = verdictOf('auto', { reason: 'small refund', ruleId: 'small' });
    const raised = applyTriage(
      v,
      { tier: 'approve', reason: 'customer sounds angry', role: 'support-lead' },
      'fallback',
    );
    assert.equal(raised.tier, 'approve');
    assert.equal(raised.ruleId, 'small');
    assert.equal(raised.reason, 'customer sounds angry (raised from auto: small refund)');
    assert.equal(raised.role, 'support-lead');
    assert.equal(raised.approvalsRequired, 1);
    assert.equal(raised.trustable, false);
    assert.equal(raised.raisedBy, 'triage');
    assert.deepEqual(raised.matched, v.matched);
    assert.equal(v.tier, 'auto', 'input verdict is not mutated');
  });

  it('picks the role: triage first, then the rule, then the fallback', () => {
    assert.equal(
      applyTriage(
        verdictOf('approve', { role: 'rule-role' }),
        { tier: 'escalate', reason: 'r', role: 'triage-role' },
        'fb',
      ).role,
      'triage-role',
    );
    assert.equal(
      applyTriage(verdictOf('notify', { role: 'rule-role' }), { tier: 'approve', reason: 'r' }, 'fb').role,
      'rule-role',
    );
    assert.equal(applyTriage(verdictOf('auto', { role: null }), { tier: 'approve', reason: 'r' }, 'fb').role, 'fb');
  });

  it('keeps a larger quorum, sets at least one approval, and none for non-interrupting tiers', () => {
    assert.equal(
      applyTriage(verdictOf('approve', { approvalsRequired: 3 }), { tier: 'escalate', reason: 'r' }, 'fb')
        .approvalsRequired,
      3,
    );
    assert.equal(applyTriage(verdictOf('auto'), { tier: 'escalate', reason: 'r' }, 'fb').approvalsRequired, 1);
    assert.equal(applyTriage(verdictOf('auto'), { tier: 'notify', reason: 'r' }, 'fb').approvalsRequired, 0);
    assert.equal(
      applyTriage(verdictOf('approve', { approvalsRequired: 2 }), { tier: 'block', reason: 'r' }, 'fb')
        .approvalsRequired,
      0,
    );
  });

  it('gives a raised request a timeout even when the rule had none', () => {
    assert.equal(
      applyTriage(verdictOf('auto', { timeoutMs: 0 }), { tier: 'approve', reason: 'r' }, 'fb').timeoutMs,
      24 * 3_600_000,
    );
    assert.equal(
      applyTriage(verdictOf('auto', { timeoutMs: 5_000 }), { tier: 'approve', reason: 'r' }, 'fb').timeoutMs,
      5_000,
    );
  });

  it('can raise a real verdict of a policy', () => {
    const policy = definePolicy({ tools: { refund: [{ id: 'small', tier: 'auto', reason: 'small' }] } });
    const v = policy.evaluate({ tool: 'refund', args: { amount: 10 } }, ctx());
    const raised = applyTriage(v, { tier: 'approve', reason: 'fraud signal' }, 'support-lead');
    assert.equal(raised.tier, 'approve');
    assert.equal(raised.role, 'support-lead');
    assert.equal(raised.timeoutMs, 24 * 3_600_000);
  });

  it('the result is always the more restrictive of the two tiers, never lower (property)', () => {
    const resultArb = fc.option(
      fc.record(
        {
          tier: tierArb,
          reason: fc.string({ minLength: 1 }),
          role: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        },
        { requiredKeys: ['tier', 'reason'] },
      ),
      { nil: undefined },
    );
    fc.assert(
      fc.property(tierArb, resultArb, fc.nat({ max: 5 }), (tier, result, approvals) => {
        const v = verdictOf(tier, { approvalsRequired: isInterrupting(tier) ? approvals : 0 });
        const out = applyTriage(v, result, 'fallback');
        assert.ok(tierRank(out.tier) >= tierRank(v.tier));
        assert.equal(out.tier, result ? maxTier(v.tier, result.tier) : v.tier);
        if (out.tier !== v.tier) {
          assert.equal(out.raisedBy, 'triage');
          assert.equal(out.trustable, false);
          if (isInterrupting(out.tier)) {
            assert.ok(out.approvalsRequired >= 1);
            assert.ok(out.approvalsRequired >= v.approvalsRequired);
            assert.ok(out.role);
          }
        } else {
          assert.equal(out, v);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('triage after policy evaluation can never lower the tier of any rule set (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tier: tierArb, matches: fc.boolean() }), { maxLength: 8 }),
        fc.option(tierArb, { nil: undefined }),
        (specs, triageTier) => {
          const rules: Rule[] = specs.map((s, i) => ({
            id: `r${i}`,
            tier: s.tier,
            role: 'ops',
            when: () => s.matches,
            reason: 'x',
          }));
          const policy = definePolicy({ tools: { t: rules } });
          const v = policy.evaluate({ tool: 't', args: {} }, ctx());
          const out = applyTriage(v, triageTier ? { tier: triageTier, reason: 'triage' } : undefined, 'fallback');
          assert.ok(tierRank(out.tier) >= tierRank(v.tier));
          if (v.tier === 'block') assert.equal(out, v);
        },
      ),
      { numRuns: 300 },
    );
  });
});
