import { z } from 'zod';
import type { StoreTx } from '../store/types.ts';
import type { EngineContext, ToolSchemaEntry } from './context.ts';

/** A tool as an integration lists it: its name and its input JSON Schema. */
export interface PublishedTool {
  name: string;
  inputSchema: unknown;
  description?: string;
}

/** Zod forms of stored schemas, by tool name and the time they were stored (a relisting replaces them). */
const converted = new WeakMap<EngineContext, Map<string, { at: number; entry: ToolSchemaEntry | null }>>();

/** A JSON Schema as a zod schema, or null when zod cannot read it (the tool is then not editable). */
function fromJsonSchema(schema: unknown, description: string | null): ToolSchemaEntry | null {
  try {
    return {
      schema: z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as ToolSchemaEntry['schema'],
      ...(description ? { description } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * Record tools' input schemas in the database and register them here. The service beside a gateway
 * shares the database, not the process: it reads them back to check a reviewer's edit.
 */
export async function publishToolSchemas(ctx: EngineContext, source: string, tools: readonly PublishedTool[]) {
  await ctx.store.putToolSchemas(
    tools.map((t) => ({ name: t.name, source, schema: t.inputSchema, description: t.description ?? null })),
    ctx.now(),
  );
}

/**
 * The schema an edit of `tool` is checked against: registered in this process (the tool runs here),
 * else as an integration published it to the database. Undefined when neither knows the tool.
 */
export async function resolveToolSchema(
  ctx: EngineContext,
  tool: string,
  db: Pick<StoreTx, 'getToolSchema'> = ctx.store,
): Promise<ToolSchemaEntry | undefined> {
  const local = ctx.tools.get(tool);
  if (local) return local;
  const stored = await db.getToolSchema(tool);
  if (!stored) return undefined;
  let cache = converted.get(ctx);
  if (!cache) converted.set(ctx, (cache = new Map<string, { at: number; entry: ToolSchemaEntry | null }>()));
  const hit = cache.get(tool);
  if (hit && hit.at === stored.updatedAt) return hit.entry ?? undefined;
  const entry = fromJsonSchema(stored.schema, stored.description);
  cache.set(tool, { at: stored.updatedAt, entry });
  return entry ?? undefined;
}

/** The input JSON Schema of a tool that is not registered here but was published by an integration. */
export async function publishedInputSchema(ctx: EngineContext, tool: string): Promise<Record<string, unknown> | null> {
  const stored = await ctx.store.getToolSchema(tool);
  return stored && typeof stored.schema === 'object' && stored.schema !== null
    ? (stored.schema as Record<string, unknown>)
    : null;
}
