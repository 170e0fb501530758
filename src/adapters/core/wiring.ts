import { AsyncLocalStorage } from 'node:async_hooks';
import { InterlockUsageError } from '../../core/index.ts';

type Fn = (...args: never[]) => unknown;

/** The integration run in progress: where a tool that ran around Interlock is noted. */
const watched = new AsyncLocalStorage<{ bypass?: string }>();
/** Original bodies of tools already guarded, so a tool shared by two agents is guarded once. */
const originals = new WeakMap<object, Fn>();

/** A tool ran without Interlock's wrapper or approval hook: the run is stopped, nothing of it is saved. */
export class NotWiredError extends InterlockUsageError {
  constructor(integration: string, what: string, how: string, cause?: unknown) {
    super('not_wired', `${integration}: ${what} ran without passing through Interlock; nothing was saved. ${how}`, {
      details: { integration },
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/**
 * Guard a tool object's body in place: from now on it runs only when Interlock's wrapper runs it,
 * under a policy verdict or a recorded decision. Returns the original body, which only the wrapper
 * holds and calls. A call around Interlock (the framework handed the app's own tools) throws
 * {@link NotWiredError} and is noted on the run, which then fails too.
 */
export function guardTool<T extends object, K extends keyof T>(
  tool: T,
  key: K,
  name: string,
  integration: string,
  how: string,
): T[K] {
  const known = originals.get(tool);
  if (known) return known as T[K];
  const original = tool[key] as unknown as Fn;
  if (typeof original !== 'function') return tool[key];
  originals.set(tool, original);
  const guard = function () {
    const run = watched.getStore();
    if (run) run.bypass ??= name;
    throw new NotWiredError(integration, `tool "${name}"`, how);
  };
  (tool as Record<PropertyKey, unknown>)[key] = guard;
  return original as T[K];
}

/** Note on the current run that a call skipped Interlock's approval hook (`what`). */
export function noteBypass(what: string): void {
  const run = watched.getStore();
  if (run) run.bypass ??= what;
}

/**
 * Run one framework call of an integration and fail closed if any tool ran around Interlock during
 * it: the framework may have turned the guard's error into a tool result for the model, so the run
 * itself throws {@link NotWiredError} afterwards, before anything of it is saved.
 */
export async function watchWiring<R>(integration: string, how: string, fn: () => Promise<R>): Promise<R> {
  const run: { bypass?: string } = {};
  let out: R;
  try {
    out = await watched.run(run, fn);
  } catch (e) {
    // The framework may wrap the guard's error in its own (a ToolCallError): say what went wrong.
    if (run.bypass) throw new NotWiredError(integration, run.bypass, how, e);
    throw e;
  }
  if (run.bypass) throw new NotWiredError(integration, run.bypass, how);
  return out;
}
