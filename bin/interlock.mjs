#!/usr/bin/env node
// The `interlock` command.
// - Installed from the package: runs the built CLI (dist/) on the Node that runs this file.
// - Inside Interlock's own repository (no dist/): runs the TypeScript sources, which needs a Node
//   that strips types; on an older one it re-runs on the Node 24 that `npm install` put in
//   node_modules (the repository's pinned `node` dev dependency).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/cli/main.js', import.meta.url);
const [major, minor] = process.versions.node.split('.').map(Number);
const supported = major >= 24 || (major === 22 && minor >= 18);

if (existsSync(fileURLToPath(built)) && !existsSync(fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)))) {
  if (!supported) {
    console.error(
      `interlock needs Node.js 22.18+, 24 or 26 (this is ${process.version}). Install a supported Node and run it again.`,
    );
    process.exit(4);
  }
  const { main } = await import(built.href);
  process.exitCode = await main(process.argv.slice(2));
} else {
  const source = new URL('../src/cli/main.ts', import.meta.url);
  if (major >= 24) {
    const { main } = await import(source.href);
    process.exitCode = await main(process.argv.slice(2));
  } else {
    const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
    if (!existsSync(pinned)) {
      console.error(
        `interlock needs Node.js 24 or newer to run from source (this is ${process.version}). Run npm install in the repository, or install Node 24.`,
      );
      process.exit(4);
    }
    const r = spawnSync(pinned, [fileURLToPath(source), ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exit(r.status ?? 4);
  }
}
