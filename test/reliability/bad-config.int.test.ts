import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { ConfigError, definePolicy, type PolicyConfig } from '../../src/core/index.ts';
import { loadConfig } from '../../src/service/index.ts';
import { sqliteBackend } from '../../src/testing/backends.ts';
import { runCli } from './crash-harness.ts';
import { recordResult, SCALE } from './results.ts';

// Invalid policies and configurations are refused before anything starts, with
// a message that names the problem and says how to fix it: by definePolicy,
// by loadConfig, and by `interlock serve --config bad.ts`, which exits non-zero.
// Unit cases of the policy schema are in src/core/policy.test.ts.
const SERVICE = pathToFileURL(join(import.meta.dirname, '../../src/service/index.ts')).href;
const AGENTS = 'agents: () => []';

/** Policies that must be refused, with a fragment the message must contain. */
const BAD_POLICIES: Array<[string, unknown, RegExp]> = [
  ['not an object', 42, /Invalid policy/],
  ['no tools', {}, /tools/],
  ['unknown tier', { tools: { t: [{ id: 'a', tier: 'maybe', reason: 'r' }] } }, /tools\.t\.0\.tier/],
  ['rule without id', { tools: { t: [{ tier: 'auto', reason: 'r' }] } }, /every rule needs an id|tools\.t\.0\.id/],
  ['rule without reason', { tools: { t: [{ id: 'a', tier: 'auto' }] } }, /tools\.t\.0\.reason/],
  ['approve without role', { tools: { t: [{ id: 'a', tier: 'approve', reason: 'r' }] } }, /needs "role"/],
  [
    'zero approvals',
    { tools: { t: [{ id: 'a', tier: 'approve', role: 'x', approvals: 0, reason: 'r' }] } },
    /approvals/,
  ],
  [
    'timeout in words',
    { tools: { t: [{ id: 'a', tier: 'approve', role: 'x', timeout: '5 minutes', reason: 'r' }] } },
    /use a duration such as "30m"/,
  ],
  [
    'escalate on timeout without a target',
    { tools: { t: [{ id: 'a', tier: 'approve', role: 'x', onTimeout: 'escalate', reason: 'r' }] } },
    /needs "escalateTo"/,
  ],
  [
    'unknown onTimeout',
    { tools: { t: [{ id: 'a', tier: 'approve', role: 'x', onTimeout: 'later', reason: 'r' }] } },
    /onTimeout/,
  ],
  [
    'when is not a function',
    { tools: { t: [{ id: 'a', tier: 'auto', when: 'amount > 5', reason: 'r' }] } },
    /must be a function/,
  ],
  ['unknown rule field', { tools: { t: [{ id: 'a', tier: 'auto', reason: 'r', threshold: 5 }] } }, /threshold/],
  [
    'duplicate rule ids',
    {
      tools: {
        t: [
          { id: 'a', tier: 'auto', reason: 'r' },
          { id: 'a', tier: 'block', reason: 'r' },
        ],
      },
    },
    /duplicate rule id/,
  ],
  [
    'sum aggregate without field',
    {
      tools: { t: { rules: [{ id: 'a', tier: 'auto', reason: 'r' }], aggregates: { s: { fn: 'sum', window: '1h' } } } },
    },
    /needs "field"/,
  ],
  ['triage not a function', { tools: {}, triage: 'raise' }, /triage/],
];

/** A valid rule, to mutate one field at a time. */
const VALID_RULE = {
  id: 'large',
  tier: 'approve',
  role: 'supervisor',
  approvals: 2,
  timeout: '30m',
  onTimeout: 'reject',
  reason: 'over $500',
  when: () => true,
  trustable: false,
};

describe('invalid policies and configurations are refused at start', () => {
  let dir: string;
  let tried = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-bad-config-'));
  });
  after(() => {
    recordResult('bad-config', { tried });
    rmSync(dir, { recursive: true, force: true });
  });

  it('definePolicy refuses each invalid policy with invalid_config and a message naming the problem', () => {
    for (const [what, policy, message] of BAD_POLICIES) {
      tried++;
      assert.throws(
        () => definePolicy(policy as PolicyConfig),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError, `${what}: a ConfigError, not ${String(err)}`);
          assert.equal(err.code, 'invalid_config');
          assert.match(err.message, message, what);
          return true;
        },
      );
    }
  });

  it('definePolicy on anything at all: a policy or a ConfigError, never another exception', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ tools: fc.dictionary(fc.string({ maxLength: 8 }), fc.anything()) }, { requiredKeys: [] }),
        ),
        (v) => {
          tried++;
          try {
            definePolicy(v as PolicyConfig);
          } catch (err) {
            assert.ok(err instanceof ConfigError, `definePolicy(${JSON.stringify(v)}) threw ${String(err)}`);
          }
        },
      ),
      { numRuns: SCALE.heavy ? 5000 : 500 },
    );
  });

  it('a valid rule with one field replaced by junk is refused, naming that field, or still valid', () => {
    const fields = Object.keys(VALID_RULE);
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.anything(), (field, junk) => {
        tried++;
        const rule = { ...VALID_RULE, [field]: junk };
        try {
          definePolicy({ tools: { issue_refund: [rule] } } as PolicyConfig);
        } catch (err) {
          assert.ok(err instanceof ConfigError, String(err));
          assert.ok(
            err.message.includes(field) || err.message.includes('role') || err.message.includes('escalateTo'),
            `the message names "${field}": ${err.message}`,
          );
        }
      }),
      { numRuns: SCALE.heavy ? 3000 : 300 },
    );
  });

  /** Write a config file and return its path. */
  const file = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  };
  const BAD_CONFIGS: Array<[string, string, RegExp]> = [
    ['no default export', `export const config = {};\n`, /\(default export\)/],
    ['default export is not an object', `export default 'interlock';\n`, /\(default export\)/],
    [
      'agents missing',
      `import { defineConfig } from '${SERVICE}';\nexport default defineConfig({ policy: { tools: {} } });\n`,
      /agents: must be a function/,
    ],
    ['policy missing', `export default { ${AGENTS} };\n`, /policy/],
    [
      'a bad rule',
      `export default { policy: { tools: { issue_refund: [{ id: 'x', tier: 'approve', reason: 'r' }] } }, ${AGENTS} };\n`,
      /needs "role"/,
    ],
    ['roles not strings', `export default { policy: { tools: {} }, ${AGENTS}, roles: [1] };\n`, /roles\.0/],
    [
      'demo reviewers without roles',
      `export default { policy: { tools: {} }, ${AGENTS}, demo: { reviewers: [{ name: 'A', roles: [] }] } };\n`,
      /demo\.reviewers\.0\.roles/,
    ],
    ['a syntax error', `export default { policy: {\n`, /Cannot load/],
    ['a throwing module', `throw new Error('boom at import');\n`, /boom at import/],
  ];

  it('loadConfig refuses each broken config file with its path and what is wrong', async () => {
    for (const [what, body, message] of BAD_CONFIGS) {
      tried++;
      const path = file(`${what.replace(/\W+/g, '-')}.ts`, body);
      await assert.rejects(loadConfig(path), (err: unknown) => {
        assert.ok(err instanceof ConfigError, `${what}: ${String(err)}`);
        assert.match(err.message, message, what);
        assert.ok(
          err.message.includes(path) || /needs "role"/.test(err.message),
          `${what}: the message names the file: ${err.message}`,
        );
        return true;
      });
    }
    tried++;
    await assert.rejects(loadConfig(join(dir, 'missing.ts')), /No configuration at .*missing\.ts\. Create it/);
  });

  it('`interlock serve --config bad.ts` exits non-zero with the message, and never serves', async () => {
    const backend = sqliteBackend();
    try {
      await backend.create();
      for (const [what, body, message] of BAD_CONFIGS.slice(2, 6)) {
        tried++;
        const path = file(`serve-${what.replace(/\W+/g, '-')}.ts`, body);
        const r = await runCli(['serve', '--config', path, '--port', '0'], backend.env());
        assert.equal(r.exitCode, 3, `${what}: exit code 3 (refused): ${r.output}`);
        assert.match(r.output, /refused \(invalid_config\)/);
        assert.match(r.output, message, what);
        assert.doesNotMatch(r.output, /Interlock is running/);
      }
    } finally {
      await backend.destroy();
    }
  });
});
