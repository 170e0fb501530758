/**
 * Interlock as another project uses it: `npm pack`, install the tarball into a fresh
 * project, and use it there on each supported Node — plain JavaScript, a strict
 * TypeScript build against the declarations, the lean root, and the CLI.
 *
 * Node binaries for the other versions come from the npm registry's `node` package and
 * are cached in ~/.cache/interlock-node/<version> (INTERLOCK_NODE_CACHE), so only the first
 * run downloads them. INTERLOCK_PACKAGE_NODES=24 limits the versions tried.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = process.env.INTERLOCK_NODE_CACHE ?? join(homedir(), '.cache', 'interlock-node');
/** The Node versions the package supports (package.json engines), newest first; 24 is the repository's own. */
const VERSIONS: Record<string, string> = { '26': '26.10.0', '24': 'repo', '22': '22.23.3' };
const wanted = (process.env.INTERLOCK_PACKAGE_NODES ?? '26,24,22').split(',').map((v) => v.trim());

/** The `node` binary of one version: the repository's for 24, else installed once into the cache. */
function nodeBinary(major: string): string {
  const version = VERSIONS[major];
  if (!version) throw new Error(`no pinned Node version for ${major}`);
  if (version === 'repo') return join(ROOT, 'node_modules', 'node', 'bin', 'node');
  const dir = join(CACHE, version);
  const bin = join(dir, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"private":true}');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `node@${version}`], {
      cwd: dir,
      stdio: 'pipe',
    });
  }
  return bin;
}

/** A free TCP port on the loopback interface. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Run `interlock serve` from the installed package until /healthz answers; returns what it said. */
async function serveUntilHealthy(
  node: string,
  bin: string,
  cwd: string,
  config: string,
): Promise<{ health: unknown; output: string }> {
  const port = await freePort();
  const child = spawn(node, [bin, 'serve', '--config', config, '--port', String(port)], {
    cwd,
    env: { ...process.env, NODE_OPTIONS: '', INTERLOCK_DATA_DIR: join(cwd, 'data'), DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  try {
    for (let i = 0; i < 150; i++) {
      if (child.exitCode !== null) throw new Error(`interlock serve exited ${child.exitCode}: ${output}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (r.ok) return { health: await r.json(), output };
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`interlock serve did not answer /healthz within 30 s: ${output}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

function run(
  bin: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): { code: number; out: string; err: string } {
  const r = spawnSync(bin, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env, NODE_OPTIONS: '' },
    timeout: 120_000,
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('the packed package, installed into another project', () => {
  let work: string;
  let app: string;
  let tarball: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'il-package-'));
    // npm pack runs prepack (the build) and lists what the tarball holds.
    const listing = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const packed = JSON.parse(listing.slice(listing.indexOf('\n[') + 1 || listing.indexOf('['))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
      size: number;
    }>;
    tarball = join(work, packed[0]!.filename);
    app = join(work, 'app');
    mkdirSync(app);
    cpSync(join(ROOT, 'test/package/consumer'), app, { recursive: true });
    // Strands Agents declares optional peers (openai 6, @ai-sdk/provider 3) older than what the OpenAI
    // Agents SDK and the AI SDK bring: a project with them all resolves those peers to its own versions,
    // as docs/adapters/strands.md tells users to, and as this repository does.
    const { overrides } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { overrides?: unknown };
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', ...(overrides ? { overrides } : {}) }),
    );
    const types = JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as {
      version: string;
    };
    const ts = JSON.parse(readFileSync(join(ROOT, 'node_modules/typescript/package.json'), 'utf8')) as {
      version: string;
    };
    // The framework an adapter serves, at the version the repository tests (an optional peer of Interlock).
    const versionOf = (pkg: string) =>
      (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
        .version;
    execFileSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        tarball,
        `@types/node@${types.version}`,
        `typescript@${ts.version}`,
        `@strands-agents/sdk@${versionOf('@strands-agents/sdk')}`,
        `ai@${versionOf('ai')}`,
        `@openai/agents-core@${versionOf('@openai/agents-core')}`,
        `langchain@${versionOf('langchain')}`,
        `@langchain/core@${versionOf('@langchain/core')}`,
        `@langchain/langgraph@${versionOf('@langchain/langgraph')}`,
        `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}`,
        `@mastra/core@${versionOf('@mastra/core')}`,
        `@anthropic-ai/claude-agent-sdk@${versionOf('@anthropic-ai/claude-agent-sdk')}`,
        // The upstream of the MCP quick start (docs/adapters/mcp.md).
        `@modelcontextprotocol/server-filesystem@${versionOf('@modelcontextprotocol/server-filesystem')}`,
        // The AI SDK's own declarations refer to these types; a strict project without skipLibCheck needs them.
        '@types/json-schema',
      ],
      { cwd: app, stdio: 'pipe' },
    );
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('ships the build, not the sources or the tests', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    assert.ok(files.includes('package/dist/index.js') && files.includes('package/dist/index.d.ts'));
    assert.ok(files.includes('package/LICENSE') && files.includes('package/bin/interlock.mjs'));
    assert.ok(
      files.some((f) => f.startsWith('package/dist/web/client/') && f.endsWith('.ts')),
      'the browser client ships for the web UI',
    );
    assert.deepEqual(
      files.filter((f) => f.startsWith('package/src/') || /\.test\.(ts|js)$/.test(f) || /fixture/.test(f)),
      [],
    );
  });

  for (const major of wanted) {
    describe(`on Node ${major}`, () => {
      let node: string;
      before(() => (node = nodeBinary(major)));

      it('a plain JavaScript agent pauses, is approved, and runs the tool once', () => {
        const r = run(node, ['approve.mjs'], app);
        assert.equal(r.code, 0, r.err);
        const out = JSON.parse(r.out.trim().split('\n').pop()!) as Record<string, unknown>;
        assert.deepEqual(out, {
          paused: 'interrupt',
          role: 'supervisor',
          final: 'end_turn',
          text: 'Refunded.',
          ran: [850, 300],
          tree: ['desk>support-sub', 'Desk: Sub done.'],
          graph: ['confirm', 'cleaned'],
        });
      });

      // Each adapter from a consumer project: the framework's own offline model or server, a pause,
      // a decision through Interlock, and the tool run once (each script prints one JSON line).
      const paused = { paused: 'interrupt', call: 'c1', final: 'end_turn', text: 'Refunded.', ran: [[850, true]] };
      const adapters: Array<[string, string, Record<string, unknown>]> = [
        ['a Strands Agents agent with interlock-approvals/strands as its hook provider', 'strands.mjs', paused],
        ['an AI SDK agent behind interlock-approvals/ai-sdk', 'ai-sdk.mjs', paused],
        ['an OpenAI Agents SDK agent behind interlock-approvals/openai-agents', 'openai-agents.mjs', paused],
        ['a LangChain createAgent agent with interlock-approvals/langchain', 'langchain.mjs', paused],
        ['a Mastra agent behind interlock-approvals/mastra', 'mastra.mjs', paused],
        ['a Claude Agent SDK session behind interlock-approvals/claude-agent-sdk', 'claude-agent-sdk.mjs', paused],
        [
          'an MCP server behind interlock-approvals/mcp',
          'mcp.mjs',
          { first: 'awaiting_approval', done: 'dropped tmp', ran: 1 },
        ],
      ];
      for (const [who, script, want] of adapters) {
        it(`${who}: pauses, is approved, and runs its tool once`, () => {
          const r = run(node, [script], app);
          assert.equal(r.code, 0, r.err);
          assert.deepEqual(JSON.parse(r.out.trim().split('\n').pop()!), want);
        });
      }

      it('importing the root loads no database driver, HTTP framework, mailer or metrics library', () => {
        const r = run(node, ['lean-root.mjs'], app);
        assert.equal(r.code, 0, r.err);
        const out = JSON.parse(r.out.trim()) as { exports: number; packages: string[] };
        assert.ok(
          out.exports > 30 && out.exports < 80,
          `the root exports the agent developer's API, curated (${out.exports} names)`,
        );
        for (const heavy of ['pg', 'hono', '@hono/node-server', 'nodemailer', 'prom-client', 'jose'])
          assert.ok(!out.packages.includes(heavy), `${heavy} was loaded: ${out.packages.join(', ')}`);
      });

      it('the interlock command runs on this Node: --help, init, and a config that loads', () => {
        const bin = join(app, 'node_modules', 'interlock-approvals', 'bin', 'interlock.mjs');
        const help = run(node, [bin, '--help'], app);
        assert.equal(help.code, 0, help.err);
        assert.match(help.out, /usage: interlock <command>/);
        const dir = mkdtempSync(join(app, 'init-'));
        const first = run(node, [bin, 'init', '--dir', dir], app);
        assert.equal(first.code, 0, first.err);
        assert.match(first.out, /wrote .*interlock\.config\.ts/);
        const again = run(node, [bin, 'init', '--dir', dir], app);
        assert.equal(again.code, 3, 'a second init is refused');
        assert.match(again.err, /config_exists/);
        // The starter config is valid: migrate loads it, and the CLI's worker-less commands accept it.
        const migrate = run(node, [bin, 'migrate'], dir, {
          INTERLOCK_DATA_DIR: join(dir, 'data'),
          INTERLOCK_CONFIG: join(dir, 'interlock.config.ts'),
        });
        assert.equal(migrate.code, 0, migrate.err);
        const check = run(
          node,
          [
            '--input-type=module',
            '-e',
            `import { loadConfig } from 'interlock-approvals'; const { config } = await loadConfig(${JSON.stringify(join(dir, 'interlock.config.ts'))}); console.log(Object.keys(config.policy.tools).join(','));`,
          ],
          app,
        );
        assert.equal(check.code, 0, check.err);
        assert.equal(check.out.trim(), 'issue_refund');
      });

      it('npx interlock --help where the package is installed; in a project made by npm init -y, init --help writes nothing and init says to set "type": "module"', () => {
        const bin = join(app, 'node_modules', 'interlock-approvals', 'bin', 'interlock.mjs');
        const proj = mkdtempSync(join(work, 'npm-init-'));
        execFileSync('npm', ['init', '-y'], { cwd: proj, stdio: 'pipe' });
        const help = run(node, [bin, 'init', '--help'], proj);
        assert.equal(help.code, 0, help.err);
        assert.match(help.out, /usage: interlock init/);
        assert.ok(!existsSync(join(proj, 'interlock.config.ts')), 'init --help wrote a config');
        const first = run(node, [bin, 'init'], proj);
        assert.equal(first.code, 0, first.err);
        assert.match(first.out, /has no "type": "module"[\s\S]*npm pkg set type=module/);
        // In the project that installed it, npx finds the command under its name, on this Node.
        const npx = run('npx', ['--no-install', 'interlock', '--help'], app, {
          PATH: `${dirname(node)}:${process.env.PATH ?? ''}`,
        });
        assert.equal(npx.code, 0, npx.err);
        assert.match(npx.out, /usage: interlock <command>/);
      });

      it('interlock serve --config runs the starter config: /healthz answers', async () => {
        const bin = join(app, 'node_modules', 'interlock-approvals', 'bin', 'interlock.mjs');
        const dir = mkdtempSync(join(app, 'serve-'));
        assert.equal(run(node, [bin, 'init', '--dir', dir], app).code, 0);
        const { health, output } = await serveUntilHealthy(node, bin, dir, join(dir, 'interlock.config.ts'));
        assert.deepEqual(health, { status: 'ok' }, output);
        assert.match(output, /Interlock is running at http:\/\/localhost:\d+/);
      });
    });
  }

  it('the MCP quick start as written: init --mcp, a reviewer, then an MCP host runs the printed JSON — the read runs, the write waits for the approval and runs once', () => {
    const node = nodeBinary('24');
    // A new folder with the packages the quick start installs (this project's install, linked, not packed again).
    const qs = mkdtempSync(join(work, 'mcp-quickstart-'));
    symlinkSync(join(app, 'node_modules'), join(qs, 'node_modules'));
    mkdirSync(join(qs, 'files'));
    writeFileSync(join(qs, 'files', 'hello.txt'), 'hello\n');
    // The binaries start with `#!/usr/bin/env node`: this Node comes first on PATH, as an npm install's would.
    // ./data, as in the folder with nothing set (named here so no INTERLOCK_DATA_DIR of the test's own leaks in).
    const env = {
      PATH: `${dirname(node)}:${process.env.PATH ?? ''}`,
      INTERLOCK_DATA_DIR: join(qs, 'data'),
      DATABASE_URL: '',
    };
    const bin = join(qs, 'node_modules', '.bin', 'interlock');
    const init = run(bin, ['init', '--mcp', '--upstream', 'files=mcp-server-filesystem ./files'], qs, env);
    assert.equal(init.code, 0, init.err);
    assert.match(init.out, /approved by a supervisor \(\d+\): write_file/);
    assert.doesNotMatch(init.out + init.err, /"type": "module"/);
    const entry = (
      JSON.parse(init.out.slice(init.out.indexOf('{'), init.out.lastIndexOf('}') + 1)) as {
        mcpServers: { files: { command: string } };
      }
    ).mcpServers.files;
    assert.equal(entry.command, bin, 'the JSON starts the installed binary');
    const reviewer = run(bin, ['reviewers', 'add', '--name', 'Sam', '--roles', 'supervisor'], qs, env);
    assert.equal(reviewer.code, 0, reviewer.err);
    const token = /token: (\S+)/.exec(reviewer.out)?.[1] ?? '';
    const host = run(node, [join(app, 'mcp-quickstart.mjs'), JSON.stringify(entry), qs], app, {
      ...env,
      INTERLOCK_TOKEN: token,
    });
    assert.equal(host.code, 0, host.err);
    assert.deepEqual(JSON.parse(host.out.trim().split('\n').pop()!), {
      read: 'hello',
      decided: true,
      wrote: 'ok',
      file: 'approved',
    });
  });

  it('a strict TypeScript project compiles against the declarations of every entry point', () => {
    const r = run(
      nodeBinary('24'),
      [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      app,
    );
    assert.equal(r.code, 0, r.out + r.err);
    assert.ok(readdirSync(join(app, 'node_modules', 'interlock-approvals', 'dist')).includes('server.d.ts'));
  });

  // Last: it removes packages from the consumer. The root must not need them at all, not merely not load them.
  it('the root works with pg, hono, nodemailer and prom-client absent', () => {
    for (const dep of ['pg', 'hono', '@hono', 'nodemailer', 'prom-client'])
      rmSync(join(app, 'node_modules', dep), { recursive: true, force: true });
    const r = run(nodeBinary('24'), ['approve.mjs'], app);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /"ran":\[850,300\]/);
  });
});
