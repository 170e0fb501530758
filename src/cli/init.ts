import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { InterlockUsageError } from '../core/index.ts';
import { initMcp } from './init-mcp.ts';
import { EXIT, UsageError, type Io } from './output.ts';

/**
 * The starter configuration `interlock init` writes: one tool, one policy with
 * an auto and an approve rule, one agent on a scripted stand-in model so it runs
 * offline. Everything it imports is from the installed package (and zod, which
 * Interlock depends on for tool schemas).
 */
export const STARTER_CONFIG = `// Interlock configuration: what \`npx interlock serve\` and \`npx interlock worker\` load.
// Docs: https://www.npmjs.com/package/interlock-approvals (README, docs/package.md).
import { createAgent, defineConfig, tool } from 'interlock-approvals';
import { scriptedModel } from 'interlock-approvals/testing';
import { z } from 'zod';

const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an order',
  schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  // Runs once per approved call. Pass idempotencyKey to your payments API so a retry after a crash dedupes.
  execute: async ({ orderId, amount }, { idempotencyKey }) => ({ refunded: amount, orderId, idempotencyKey }),
});

// A scripted stand-in model so this runs offline. Replace it with any AI SDK model, e.g.
//   import { openai } from '@ai-sdk/openai';  const model = openai('gpt-4o-mini');
const model = scriptedModel((ctx) =>
  ctx.lastToolResults.length > 0
    ? { text: \`Done: \${JSON.stringify(ctx.lastToolResults[0]?.output)}\` }
    : { toolCalls: [{ name: 'issue_refund', args: { orderId: 'ORD-1', amount: Number(/\\$(\\d+)/.exec(ctx.lastUserText)?.[1] ?? 850) } }] },
);

export default defineConfig({
  policy: {
    tools: {
      issue_refund: [
        { id: 'small-refund', tier: 'auto', reason: 'refunds up to $100 run alone', when: ({ args }) => Number(args.amount) <= 100 },
        { id: 'large-refund', tier: 'approve', role: 'supervisor', reason: 'refund over $100', timeout: '30m', onTimeout: 'reject' },
      ],
    },
  },
  agents: ({ interlock }) => [
    createAgent({ name: 'support', version: '1.0.0', model, system: 'You help customers with refunds.', tools: [issueRefund], interlock }),
  ],
  roles: ['supervisor'],
});
`;

/** The package.json that governs files in `dir` (the nearest one up the tree), if any. */
function nearestPackageJson(dir: string): { path: string; type: unknown } | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const path = join(at, 'package.json');
    if (existsSync(path)) {
      try {
        return { path, type: (JSON.parse(readFileSync(path, 'utf8')) as { type?: unknown }).type };
      } catch {
        return undefined; // an unreadable package.json: Node will say what is wrong with it
      }
    }
    if (dirname(at) === at) return undefined;
  }
}

/**
 * `interlock init [--dir DIR]`: write a starter interlock.config.ts; never overwrites. With `--mcp
 * --upstream NAME=COMMAND…`, the MCP gateway's interlock.config.mjs instead (src/cli/init-mcp.ts).
 */
export function init(args: string[], io: Io): number | Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(`usage: interlock init [--dir DIR]
       interlock init --mcp --upstream NAME=COMMAND… [--role ROLE] [--dir DIR]

Writes a starter interlock.config.ts in DIR (default: the current folder): one tool, a policy and an
agent on a scripted model. With --mcp, writes interlock.config.mjs for the MCP gateway instead: it starts
each upstream, lists its tools, lets the ones marked read-only run and has ROLE (default supervisor)
approve every other one, then prints the JSON for Claude Desktop or the MCP Inspector. Never overwrites.`);
    return EXIT.ok;
  }
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      mcp: { type: 'boolean' },
      upstream: { type: 'string', multiple: true },
      role: { type: 'string' },
    },
    strict: true,
  });
  const dir = resolve(values.dir ?? '.');
  if (values.mcp) return initMcp({ dir, role: values.role ?? 'supervisor', upstreams: values.upstream ?? [] }, io);
  if (values.upstream || values.role) throw new UsageError('--upstream and --role go with --mcp');
  const path = resolve(dir, 'interlock.config.ts');
  if (existsSync(path)) {
    throw new InterlockUsageError(
      'config_exists',
      `${path} already exists; nothing was written. Edit it, or move it away and run interlock init again.`,
      { details: { path } },
    );
  }
  writeFileSync(path, STARTER_CONFIG, { flag: 'wx' });
  const pkg = nearestPackageJson(dir);
  // Node loads a .ts file as the nearest package.json says: without "type": "module" the config's
  // imports fail to load (a project made by `npm init -y`).
  if (pkg && pkg.type !== 'module')
    io.out(`note: ${pkg.path} has no "type": "module", so Node cannot load interlock.config.ts (it uses import).
      Add it: npm pkg set type=module`);
  io.out(`wrote ${path}

next:
  npx interlock reviewers add --name "Sam Supervisor" --roles supervisor   # prints a token
  npx interlock serve                                                       # API + web UI on http://localhost:3000
  curl -X POST localhost:3000/api/v1/threads -H "Authorization: Bearer <token>" \\
       -H 'content-type: application/json' -d '{"agent":"support","input":"refund $850 for ORD-1"}'
then open http://localhost:3000 and approve, edit, reject or respond.`);
  return EXIT.ok;
}
