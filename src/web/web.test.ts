import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAssets, toJavaScript } from './assets.ts';
import { batchDigest } from './batch-digest.ts';
import { queueDepthSeries } from './dashboard-data.ts';
import { escapeHtml, html } from './html.ts';
import { safeNext } from './routes/session-routes.ts';

describe('web helpers', () => {
  it('html`` escapes every value unless it is Html itself', () => {
    const name = `<img src=x onerror="alert(1)">&'`;
    assert.equal(
      html`<p title="${name}">${name}</p>`.value,
      '<p title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;</p>',
    );
    assert.equal(html`<ul>${['a<', html`<li>b</li>`]}</ul>`.value, '<ul>a&lt;<li>b</li></ul>');
    assert.equal(html`${null}${undefined}${false}${0}`.value, '0');
    assert.equal(escapeHtml('"x"'), '&quot;x&quot;');
  });

  it('serves the shared core module reveal.ts to the browser, with no imports, and no other core file', async () => {
    const assets = createAssets();
    const body = assets.script('reveal.ts')?.body ?? '';
    assert.match(body, /export function reveal\(text\s*\)/);
    assert.doesNotMatch(body, /^import /m, 'a browser module served alone must not import anything');
    const url = `data:text/javascript;base64,${Buffer.from(body).toString('base64')}`;
    const mod = (await import(url)) as { reveal(t: string): string };
    assert.equal(mod.reveal('\u202e24-CCA'), '⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩24-CCA', 'the served module runs');
    for (const name of ['policy.ts', 'redact.ts', 'reveal.test.ts', 'canonical.ts'])
      assert.equal(assets.script(name), undefined, name);
  });

  it('safeNext keeps same-site paths and drops everything else', () => {
    assert.equal(safeNext('/approvals/apr_1?x=1'), '/approvals/apr_1?x=1');
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example',
      'javascript:alert(1)',
      '/a b',
      '/signin?next=/',
      undefined,
      42,
    ]) {
      assert.equal(safeNext(bad), '/', String(bad));
    }
  });

  it('batchDigest binds ids, versions, hashes and order', () => {
    const a = { id: 'apr_1', expectedVersion: 1, actionHash: 'h1' };
    const b = { id: 'apr_2', expectedVersion: 3, actionHash: 'h2' };
    assert.match(batchDigest([a, b]), /^[0-9a-f]{64}$/);
    assert.equal(
      batchDigest([a, b]),
      batchDigest([{ ...a }, { actionHash: 'h2', expectedVersion: 3, id: 'apr_2' }]),
      'key order does not matter',
    );
    assert.notEqual(batchDigest([a, b]), batchDigest([b, a]));
    assert.notEqual(batchDigest([a, b]), batchDigest([a, { ...b, expectedVersion: 4 }]));
    assert.notEqual(batchDigest([a]), batchDigest([a, b]));
    assert.equal(batchDigest([{ ...a, extra: 'ignored' } as typeof a]), batchDigest([a]));
  });

  it('queueDepthSeries counts a request from its creation until it was resolved', () => {
    const reqs = [
      { createdAt: 0, resolvedAt: 50, status: 'authorized' as const },
      { createdAt: 20, resolvedAt: null, status: 'pending' as const },
      { createdAt: 60, resolvedAt: 90, status: 'rejected' as const },
      { createdAt: 200, resolvedAt: null, status: 'pending' as const },
    ];
    assert.deepEqual(
      queueDepthSeries(reqs, 0, 100, 11).map((p) => p.depth),
      [1, 1, 2, 2, 2, 1, 2, 2, 2, 1, 1],
    );
  });

  it('serves browser TypeScript as JavaScript without a warning on the console', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const js = toJavaScript(
        "import type { A } from './a.ts';\nexport function f(x: number): A | undefined { return x as unknown as A; }\n",
        'f.ts',
      );
      assert.doesNotMatch(js, /: number|import type|as unknown/);
      assert.match(js, /export function f\(x\s*\)/);
      assert.match(js, /\/\/# sourceURL=\/ui\/js\/f\.ts/);
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, []);
  });
});
