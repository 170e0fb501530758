/**
 * Build the published package into dist/: `tsc -p tsconfig.build.json` emits ESM
 * JavaScript, declarations and source maps; then the files the web UI serves as
 * they are (the browser client's TypeScript, whose types the server erases when
 * serving, and the static CSS/SVG) are copied beside the compiled server code, at
 * the same relative paths src/web/assets.ts reads them from.
 *
 *   node scripts/build.ts      # run by `npm pack` / `npm publish` (prepack)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHARED_BROWSER_FILES } from '../src/web/assets.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error('build: tsc failed; nothing was published.');
  process.exit(r.status ?? 1);
}

// The browser client: shipped as source, served with types erased.
const client = join(root, 'src/web/client');
mkdirSync(join(dist, 'web/client'), { recursive: true });
for (const name of readdirSync(client)) {
  if (name.endsWith('.ts') && !name.endsWith('.test.ts')) cpSync(join(client, name), join(dist, 'web/client', name));
}
cpSync(join(root, 'src/web/assets'), join(dist, 'web/assets'), { recursive: true });
// Modules of other layers the browser also loads (pure, import-free TypeScript).
for (const rel of SHARED_BROWSER_FILES) {
  const from = join(root, 'src', rel);
  if (!existsSync(from)) throw new Error(`build: ${rel} is listed in SHARED_BROWSER_FILES but missing`);
  cpSync(from, join(dist, rel));
}
console.error('build: dist/ ready');
