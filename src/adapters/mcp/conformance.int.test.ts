// `@modelcontextprotocol/conformance` (pinned in devDependencies), every server scenario (`--suite all`),
// against the reference server directly and behind `interlock mcp --http`: with every tool auto the
// gateway passes every scenario the server passes; with some tools gated, only those calls differ.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterlock } from '../../engine/index.ts';
import { openStore } from '../../store/index.ts';
import { startReferenceServer } from '../../../test/support/mcp-reference-server.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const main = join(root, 'src/cli/main.ts');
const conformanceBin = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_reconnection',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
];
/** The gated run: two tools need a supervisor, one is blocked; the rest stay automatic. */
const GATED: Record<string, object> = {
  test_simple_text: { id: 'gate-text', tier: 'approve', role: 'supervisor', reason: 'conformance: gated' },
  test_image_content: { id: 'gate-image', tier: 'approve', role: 'supervisor', reason: 'conformance: gated' },
  test_error_handling: { id: 'no-errors', tier: 'block', reason: 'conformance: blocked' },
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
  details?: { result?: { content?: Array<{ text?: string }>; isError?: boolean; _meta?: Record<string, unknown> } };
}
type Results = Map<string, Check[]>;

/** Run every server scenario against `url`; the checks of each scenario, by its name. */
async function suite(url: string, out: string): Promise<Results> {
  await new Promise<void>((resolve) => {
    // The suite exits non-zero when a check fails; the checks it saved are what the test reads.
    execFile(process.execPath, [conformanceBin, 'server', '--url', url, '--suite', 'all', '-o', out], () => resolve());
  });
  const results: Results = new Map();
  for (const dir of readdirSync(out)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    results.set(scenario, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

const passed = (checks: Check[] | undefined) =>
  !!checks && checks.every((c) => c.status !== 'FAILURE') && checks.some((c) => c.status !== 'WARNING');

/** `interlock mcp --http 0` in front of the reference server, on its own SQLite file. */
async function gateway(dir: string, name: string, upstream: string, gated: boolean) {
  const rules = Object.fromEntries(
    TOOLS.map((t) => [t, [gated && GATED[t] ? GATED[t] : { id: 'auto', tier: 'auto', reason: 'conformance' }]]),
  );
  const config = join(dir, `${name}.config.ts`);
  writeFileSync(
    config,
    `export default { policy: { tools: ${JSON.stringify(rules)} }, agents: () => [],
  mcp: { upstreams: { reference: { url: ${JSON.stringify(upstream)} } }, holdMs: 100 } };\n`,
  );
  const db = `sqlite:${join(dir, `${name}.db`)}`;
  const child = spawn(process.execPath, [main, 'mcp', '--config', config, '--http', '0'], {
    env: { ...process.env, DATABASE_URL: db },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`interlock mcp exited ${code}: ${err}`)));
  });
  return { child, url, db };
}

describe('MCP conformance suite: the reference server directly and behind interlock mcp --http', () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-conformance-'));
  const children: ChildProcess[] = [];
  let reference: Awaited<ReturnType<typeof startReferenceServer>>;
  let direct: Results;
  let auto: Results;
  let gated: Results;
  let gatedDb: string;

  before(async () => {
    reference = await startReferenceServer();
    const [a, g] = await Promise.all([
      gateway(dir, 'auto', reference.url, false),
      gateway(dir, 'gated', reference.url, true),
    ]);
    children.push(a.child, g.child);
    gatedDb = g.db;
    [direct, auto, gated] = await Promise.all([
      suite(reference.url, join(dir, 'direct')),
      suite(a.url, join(dir, 'auto')),
      suite(g.url, join(dir, 'gated')),
    ]);
  });
  after(async () => {
    for (const c of children) c.kill('SIGTERM');
    await reference.close();
  });

  it('the reference server passes the whole suite (the baseline means something)', () => {
    assert.ok(direct.size >= 30, `scenarios run: ${[...direct.keys()].join(', ')}`);
    const failing = [...direct].filter(([, c]) => !passed(c) && c.some((x) => x.status === 'FAILURE'));
    assert.deepEqual(
      failing.map(([s]) => s),
      [],
    );
  });

  it('with every tool auto, the gateway passes every scenario the server passes', () => {
    const lost = [...direct]
      .filter(([s, c]) => passed(c) && !passed(auto.get(s)))
      .map(([s]) => `${s}: ${JSON.stringify(auto.get(s)?.filter((c) => c.status === 'FAILURE'))}`);
    assert.deepEqual(lost, []);
    assert.deepEqual([...auto.keys()].sort(), [...direct.keys()].sort());
  });

  it('with tools gated, only the gated calls differ: awaiting approval, or blocked, as documented', async () => {
    const changed = [...auto].filter(([s, c]) => passed(c) !== passed(gated.get(s))).map(([s]) => s);
    // The image tool's call is answered "awaits approval" (text, no image): the one scenario that fails.
    assert.deepEqual(changed, ['tools-call-image']);
    const text = gated.get('tools-call-simple-text')![0]!.details!.result!;
    assert.match(text.content![0]!.text!, /awaits approval by a supervisor \(role "supervisor"/);
    assert.equal((text._meta?.['interlock/status'] as { status?: string }).status, 'awaiting_approval');
    const blocked = gated.get('tools-call-error')![0]!.details!.result!;
    assert.equal(blocked.isError, true);
    assert.match(blocked.content![0]!.text!, /conformance: blocked/);
    // A request was opened for each gated call that asked, and none for anything else.
    const store = await openStore(gatedDb);
    try {
      const il = createInterlock({ store, policy: { tools: {} } });
      const tools = (await il.listRequests({})).items.map((r) => r.tool).sort();
      assert.deepEqual(tools, ['test_image_content', 'test_simple_text']);
    } finally {
      await store.close();
    }
  });
});
