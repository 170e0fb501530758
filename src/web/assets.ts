import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A file the UI serves, ready to send. */
export interface Asset {
  body: string;
  contentType: string;
  etag: string;
}

const CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url));

const STATIC_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/**
 * Core modules the browser runs too, served beside the client's own under
 * /ui/js/ so the page and the server apply one rule (the client's tsconfig
 * maps them in with `rootDirs`). An explicit list, as paths relative to src/:
 * each must have no imports and touch nothing but its arguments. The package
 * build copies them next to the compiled code (scripts/build.ts).
 */
export const SHARED_BROWSER_FILES: readonly string[] = ['core/reveal.ts'];
const SHARED: Record<string, string> = Object.fromEntries(
  SHARED_BROWSER_FILES.map((rel) => [
    rel.slice(rel.lastIndexOf('/') + 1),
    fileURLToPath(new URL(`../${rel}`, import.meta.url)),
  ]),
);

// Names only (no folders, no dots but the extension's): nothing outside the two folders can be asked for.
const CLIENT_NAME = /^[a-z][a-z0-9-]*\.ts$/;
const STATIC_NAME = /^[a-z][a-z0-9-]*\.(css|svg)$/;
const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };

/**
 * Browser code is written in TypeScript (type-checked with the DOM library by
 * src/web/client/tsconfig.json) and served as JavaScript by erasing its types
 * once per process — erasable syntax only, so positions are kept and no
 * source map is needed. Node marks `stripTypeScriptTypes` experimental and
 * warns once per process; that one warning is silenced here so it does not
 * reach every service log and test run.
 */
export function toJavaScript(source: string, name: string): string {
  const own = Object.getOwnPropertyDescriptor(process, 'emitWarning');
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]): void => {
    if (String(warning).includes('stripTypeScriptTypes')) return;
    emit(warning, ...rest);
  };
  try {
    return stripTypeScriptTypes(source, { mode: 'strip', sourceUrl: `/ui/js/${name}` });
  } finally {
    if (own) Object.defineProperty(process, 'emitWarning', own);
    else delete (process as { emitWarning?: unknown }).emitWarning;
  }
}

function asset(body: string, contentType: string): Asset {
  return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/**
 * The UI's scripts and static files, read and prepared on first request and
 * then kept in memory. Unknown names give undefined (a 404).
 */
export function createAssets(): { script(name: string): Asset | undefined; file(name: string): Asset | undefined } {
  const cache = new Map<string, Asset | null>();
  const load = (key: string, make: () => Asset): Asset | undefined => {
    if (!cache.has(key)) {
      try {
        cache.set(key, make());
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        cache.set(key, null);
      }
    }
    return cache.get(key) ?? undefined;
  };
  return {
    script(name) {
      if (!CLIENT_NAME.test(name) || name.endsWith('.test.ts')) return undefined;
      const path = Object.hasOwn(SHARED, name) ? SHARED[name]! : CLIENT_DIR + name;
      return load(`js:${name}`, () =>
        asset(toJavaScript(readFileSync(path, 'utf8'), name), 'text/javascript; charset=utf-8'),
      );
    },
    file(name) {
      const m = STATIC_NAME.exec(name);
      if (!m) return undefined;
      return load(`file:${name}`, () => asset(readFileSync(STATIC_DIR + name, 'utf8'), TYPES[m[1]!]!));
    },
  };
}
