#!/usr/bin/env node
// The `interlock` command. Interlock runs on Node 24 (TypeScript type stripping,
// node:sqlite); on an older Node this re-runs the CLI on the Node 24 that
// `npm install` put in node_modules (the pinned `node` dev dependency).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
if (major >= 24) {
  const { main: run } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
  process.exitCode = await run(process.argv.slice(2));
} else {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    console.error(`interlock needs Node.js 24 or newer (this is ${process.version}). Run npm install in the project, or install Node 24.`);
    process.exit(4);
  }
  const r = spawnSync(pinned, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 4);
}
