import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG_PATH } from '../service/index.ts';
import { serviceProcess } from '../testing/service-process.ts';

describe('interlock serve with the demo configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'il-serve-demo-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the demo tokens on the first start, and how to get a token on later ones', async () => {
    const svc = await serviceProcess({
      config: DEFAULT_CONFIG_PATH,
      env: { INTERLOCK_DATA_DIR: dir, DATABASE_URL: '' },
    });
    await svc.start();
    assert.equal(await svc.stop(), 0);
    const first = svc.output;
    assert.match(first, /Demo reviewers \(tokens are shown once/);
    assert.match(first, /il_[A-Za-z0-9_-]{43}/);
    await svc.start();
    assert.equal(await svc.stop(), 0);
    const second = svc.output.slice(first.length);
    assert.doesNotMatch(second, /il_[A-Za-z0-9_-]{43}/, 'no token is printed twice');
    assert.match(second, /Reviewers exist already/);
    assert.match(second, /reviewers add --name "Your Name" --roles /);
  });
});
