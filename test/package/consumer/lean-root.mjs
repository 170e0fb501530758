// Which packages importing the root loads: every module resolution is recorded (synchronous hooks).
import { registerHooks } from 'node:module';

const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(r.url);
    if (m) loaded.add(m[1]);
    return r;
  },
});
const root = await import('interlock-approvals');
console.log(JSON.stringify({ exports: Object.keys(root).length, packages: [...loaded].sort() }));
