/**
 * The project's own copies of packages that bench/node_modules holds too. LangGraph.js's peers
 * (bench/package.json) install @langchain/langgraph, @langchain/core and zod there, so a module under
 * bench/ that imports them by name gets those copies, while `langchain` and Interlock's adapters use
 * the root's: `createAgent`'s `invoke` takes a `Command` of the other copy for input (it checks
 * `instanceof`), and the resume silently starts a new step instead. The suites that drive the
 * adapters load these from the root's node_modules, the copies the adapters themselves use.
 */
const root = (path: string) => new URL(`../../node_modules/${path}`, import.meta.url).href;

export const { Command } = (await import(
  root('@langchain/langgraph/dist/index.js')
)) as typeof import('@langchain/langgraph');
export const { fakeModel } = (await import(
  root('@langchain/core/dist/testing/index.js')
)) as typeof import('@langchain/core/testing');
export const { z } = (await import(root('zod/index.js'))) as typeof import('zod');
