import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const run = promisify(execFile);
const dir = fileURLToPath(new URL('../examples/', import.meta.url));
const expected: Record<string, RegExp[]> = {
  'engine-quickstart.ts': [/tier: approve/, /execution: succeeded/, /approved by reviewer:sam/, /audit chain ok: true/],
  'agent-quickstart.ts': [/^interrupt - /m, /^end_turn - Your refund of \$850/m, /model calls: 2/],
  'multi-agent.ts': [
    /^graph: interrupt - confirm_cleanup at maintenance › cleanup/m,
    /^tree: interrupt - issue_refund .* at support › refunds$/m,
    /^tree: root thread interrupted, refunds so far: 0$/m,
    /^graph: cleanup runs 1, inspector model calls 1$/m,
    /^refunds paid: 1; model calls: support 2, refunds 2$/m,
  ],
  'adapters/openai-agents.ts': [
    /^app: interrupt - /m,
    /^resumed in process \d+: end_turn/m,
    /refunds at the payment provider: 1$/m,
  ],
  'adapters/langchain.ts': [
    /^reviewer: edited to \$600/m,
    /^resumed in process \d+: end_turn/m,
    /refunds at the payment provider: 1 \(\$600\)$/m,
  ],
  'adapters/mcp-gateway.ts': [
    /^read_file: remember the milk/m,
    /^delete_file: This action awaits approval/m,
    /^delete_file again: deleted \/old\.log/m,
    /reached the files server: 1$/m,
  ],
  'adapters/langgraph-gate.ts': [
    /^round 1: interrupt → end_turn$/m,
    /^round 2: interrupt → end_turn$/m,
    /^refunds at the payment provider: 2, keys distinct: 2$/m,
  ],
  'adapters/strands-graph.ts': [
    /^graph: interrupt - multiagent-hook:beforeNodeCall:cleanup:interlock-approval - /m,
    /^graph resumed from the checkpoint by a new engine: end_turn - Cleaned 3 resources\.$/m,
    /^graph runs: inspector 1, cleanup 1$/m,
    /^swarm: interrupt → end_turn \(CANCELLED\); cleanup runs 1$/m,
  ],
  'adapters/strands.ts': [
    /^app: interrupt - hook:beforeToolCall:tooluse_1:interlock-approval - /m,
    /^resumed in process \d+: end_turn - The tool said: deleted \/tmp\/old\.log/m,
    /^rejected: end_turn - .*not that one$/m,
    /^deletions: 1$/m,
  ],
  'adapters/claude-agent-sdk.ts': [
    /^app: interrupt - /m,
    /^Bash: Blocked by policy: the support agent runs no shell commands$/m,
    /^resumed in process \d+: end_turn - Your refund of \$850 is on its way\.$/m,
    /refunds at the payment provider: 1$/m,
  ],
  'adapters/ai-sdk.ts': [
    /^app: interrupt - /m,
    /^reviewer: authorized over HTTP/m,
    /refunds at the payment provider: 1$/m,
  ],
  'adapters/mastra.ts': [
    /^app: interrupt - /m,
    /^reviewer: authorized over HTTP/m,
    /^thread: completed; refunds at the payment provider: 1$/m,
  ],
};

// The README's examples are these files: they must run and print what the README says.
describe('examples', () => {
  const adapters = readdirSync(join(dir, 'adapters')).map((f) => `adapters/${f}`);
  for (const file of [...readdirSync(dir), ...adapters].filter((f) => f.endsWith('.ts'))) {
    it(`${file} runs`, async () => {
      const { stdout } = await run(process.execPath, [join(dir, file)], { timeout: 60_000 });
      for (const re of expected[file] ?? []) assert.match(stdout, re);
    });
  }
});
