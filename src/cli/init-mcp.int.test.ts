/**
 * `interlock init --mcp`: from the official filesystem server's own tool list, a gateway configuration
 * that loads as it is written (an .mjs, whatever package.json says), with read-only tools automatic
 * and the rest approved by a role, upstream paths anchored to the folder, and the MCP host's JSON
 * pointing at the installed binary.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../service/index.ts';
import { main } from './main.ts';

const FILESYSTEM = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

async function run(args: string[], cwd?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const was = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    process.chdir(was);
  }
}

describe('interlock init --mcp', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'il-init-mcp-'));
    mkdirSync(join(dir, 'files'));
    // A project made by `npm init -y`: CommonJS by default, where a .ts config would not load.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'gw', version: '1.0.0' }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes interlock.config.mjs from the upstream tools: read-only ones auto, the rest approved by the role', async () => {
    const r = await run([
      'init',
      '--mcp',
      '--dir',
      dir,
      '--role',
      'files-admin',
      '--upstream',
      `files="${process.execPath}" "${FILESYSTEM}" ./files`,
    ]);
    assert.equal(r.code, 0, r.err);
    const path = join(dir, 'interlock.config.mjs');
    const { config } = await loadConfig(path);
    const tools = config.policy.tools as Record<string, Array<{ tier: string; role?: string }>>;
    assert.equal(tools.read_text_file?.[0]?.tier, 'auto');
    assert.equal(tools.list_directory?.[0]?.tier, 'auto');
    assert.deepEqual(
      [tools.write_file?.[0]?.tier, tools.write_file?.[0]?.role],
      ['approve', 'files-admin'],
      'write_file waits for the role',
    );
    assert.equal(tools.move_file?.[0]?.tier, 'approve');
    // The upstream runs from wherever the MCP host starts the gateway: its folder is absolute.
    assert.deepEqual(config.mcp?.upstreams.files, {
      command: process.execPath,
      args: [FILESYSTEM, join(dir, 'files')],
    });
    assert.deepEqual(config.mcp?.hints, {
      readOnly: 'auto',
      other: 'approve',
      role: 'files-admin',
      trustAnnotationsOf: ['files'],
    });
    // The MCP host's JSON: the installed binary, this config and this folder's database, all absolute.
    const json = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1)) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    assert.deepEqual(json.mcpServers.files, {
      command: join(dir, 'node_modules', '.bin', 'interlock'),
      args: ['mcp', '--config', path],
      env: { INTERLOCK_DATA_DIR: join(dir, 'data') },
    });
    assert.match(r.out, /reviewers add --name "Sam" --roles files-admin/);
    assert.doesNotMatch(r.out, /type.*module/, 'no package.json change is asked for');
  });

  it('is found without --config in its folder', async () => {
    const was = process.cwd();
    process.chdir(dir);
    try {
      const { path } = await loadConfig(undefined, {});
      assert.equal(path, join(dir, 'interlock.config.mjs'));
    } finally {
      process.chdir(was);
    }
  });

  it('never overwrites, and asks for an upstream when none is given', async () => {
    const before = readFileSync(join(dir, 'interlock.config.mjs'), 'utf8');
    const again = await run(['init', '--mcp', '--dir', dir, '--upstream', `files=${process.execPath} ${FILESYSTEM} .`]);
    assert.equal(again.code, 3);
    assert.match(again.err, /config_exists/);
    assert.equal(readFileSync(join(dir, 'interlock.config.mjs'), 'utf8'), before);
    const none = await run(['init', '--mcp', '--dir', mkdtempSync(join(tmpdir(), 'il-init-mcp-none-'))]);
    assert.equal(none.code, 2);
    assert.match(none.err, /--upstream NAME=COMMAND/);
  });

  it('says which upstream could not start, and writes nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'il-init-mcp-bad-'));
    try {
      const r = await run(['init', '--mcp', '--dir', empty, '--upstream', 'files=/nonexistent/server --flag']);
      assert.equal(r.code, 2, r.out);
      assert.match(r.err, /Could not start upstream "files" \(\/nonexistent\/server --flag\)/);
      assert.equal(existsSync(join(empty, 'interlock.config.mjs')), false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
