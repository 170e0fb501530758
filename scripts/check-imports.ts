/**
 * The import check in `npm test`: no import cycle between source files, and the layers of
 * docs/architecture.md point down only. A file may import its own layer and the layers below it;
 * the web UI sits above the server (the server never imports web), and nothing below `service`
 * imports it. dpdm parses the imports (type-only ones included: a type cycle is still a knot).
 *
 *   node scripts/check-imports.ts        # prints each cycle / upward import, exit 1 if any
 */
import { parseCircular, parseDependencyTree, prettyCircular } from 'dpdm';

/** Layers from the bottom up; a folder of src/ per layer. Same rank: may not import each other. */
const RANK: Record<string, number> = {
  core: 0,
  store: 1,
  engine: 2,
  notify: 3,
  agent: 3,
  adapters: 4,
  worker: 4,
  server: 5,
  web: 6,
  service: 7,
  cli: 8,
  // Test support sits beside the top: it builds whole services for tests and examples.
  testing: 8,
};

const layerOf = (file: string): string | undefined => /^src\/([^/]+)\//.exec(file)?.[1];

const tree = await parseDependencyTree(['src/**/*.ts'], { transform: false, skipDynamicImports: false });
const problems: string[] = [];

const cycles = parseCircular(tree);
if (cycles.length > 0)
  problems.push(`Import cycles (break each, e.g. move the shared type down a layer):\n${prettyCircular(cycles)}`);

for (const [file, deps] of Object.entries(tree)) {
  const from = layerOf(file);
  // Tests may reach any layer: they build whole services to test one part (their fixtures live in test/support/).
  if (!from || !deps || /\.test\.ts$/.test(file)) continue;
  for (const d of deps) {
    const to = d.id ? layerOf(d.id) : undefined;
    if (!to || to === from) continue;
    const a = RANK[from];
    const b = RANK[to];
    if (a === undefined || b === undefined) {
      problems.push(
        `${file} → ${d.id}: layer "${a === undefined ? from : to}" has no rank in scripts/check-imports.ts; add it.`,
      );
    } else if (b >= a) {
      problems.push(
        `${file} imports ${d.id}: ${from} may not import ${to} (layers point down only; see docs/architecture.md).`,
      );
    }
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
} else {
  console.log(`imports: ${Object.keys(tree).length} files, no cycle, layers point down`);
}
