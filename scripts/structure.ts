// Structure figures of src/ (docs/architecture.md "Measured"): files over 400 lines, functions over 80
// lines, the longest functions, and audit events composed outside the engine.
// Run: node scripts/structure.ts [--list]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('../src/', import.meta.url).pathname;
const files: string[] = [];
(function walk(dir: string) {
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) files.push(p);
  }
})(root);

const long: Array<{ file: string; lines: number }> = [];
const fns: Array<{ name: string; file: string; lines: number }> = [];
const auditOutside: string[] = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const rel = relative(root, file);
  const lines = text.split('\n').length;
  if (lines > 400) long.push({ file: rel, lines });
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node, owner: string) => {
    let name = owner;
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)
    ) {
      const declared =
        (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name
          ? node.name.getText(sf)
          : ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)
            ? node.parent.name.getText(sf)
            : '(anonymous)';
      name = owner ? `${owner} › ${declared}` : declared;
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      fns.push({ name, file: rel, lines: end - start + 1 });
    }
    // An audit event composed: an object literal with `actor`, `payload` and a `type` given as a string
    // (a copy of a read event, `type: e.type`, is not a composition).
    if (ts.isObjectLiteralExpression(node) && !rel.startsWith('engine/') && !rel.startsWith('store/')) {
      const keys = new Set(node.properties.map((p) => (p.name ? p.name.getText(sf) : '')));
      const type = node.properties.find((p) => p.name?.getText(sf) === 'type');
      const literal =
        type !== undefined &&
        ts.isPropertyAssignment(type) &&
        (ts.isStringLiteral(type.initializer) || ts.isNoSubstitutionTemplateLiteral(type.initializer));
      if (literal && keys.has('actor') && keys.has('payload'))
        auditOutside.push(`${rel}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`);
    }
    ts.forEachChild(node, (c) => visit(c, name));
  };
  visit(sf, '');
}
const over80 = fns.filter((f) => f.lines > 80).sort((a, b) => b.lines - a.lines);
// A function that contains a long function counts once: keep the innermost of nested long ones.
const innermost = over80.filter(
  (f) => !over80.some((g) => g !== f && g.file === f.file && g.name.startsWith(`${f.name} › `)),
);
console.log(`src files (no tests): ${files.length}; over 400 lines: ${long.length}`);
for (const f of long.sort((a, b) => b.lines - a.lines)) console.log(`  ${f.lines}  ${f.file}`);
console.log(`functions over 80 lines: ${innermost.length}`);
if (process.argv.includes('--list')) for (const f of innermost) console.log(`  ${f.lines}  ${f.file}  ${f.name}`);
const decide = fns.find((f) => f.file === 'engine/decide.ts' && f.name === 'decide');
console.log(`decide: ${decide?.lines ?? '?'} lines`);
console.log(`audit events composed outside engine/ and store/: ${auditOutside.length}`);
if (process.argv.includes('--list')) for (const a of auditOutside) console.log(`  ${a}`);
