import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main.ts';

const COMMANDS = ['init', 'serve', 'worker', 'migrate', 'reviewers', 'approvals', 'threads', 'audit', 'metrics', 'mcp'];

describe('every command answers --help and -h, and does nothing else', () => {
  for (const cmd of COMMANDS)
    for (const flag of ['--help', '-h'])
      it(`interlock ${cmd} ${flag}`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'il-help-'));
        const out: string[] = [];
        const err: string[] = [];
        try {
          // A database URL that cannot be opened: a command that ran anyway would fail.
          const code = await main([cmd, ...(cmd === 'init' ? ['--dir', dir] : []), flag], {
            out: (l) => out.push(l),
            err: (l) => err.push(l),
            env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', INTERLOCK_CONFIG: join(dir, 'missing.ts') },
          });
          assert.equal(code, 0, err.join('\n'));
          assert.match(out.join('\n'), new RegExp(`usage: interlock ${cmd}\\b`));
          assert.deepEqual(err, []);
          assert.ok(!existsSync(join(dir, 'interlock.config.ts')), 'nothing was written');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
});
