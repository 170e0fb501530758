import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolSchemaEntry } from '../../engine/index.ts';
import type { Route } from './types.ts';

/** A page of a paginated MCP list. */
type Page = { nextCursor?: string | undefined };

/**
 * Every page of a paginated MCP list, in order. A server that hands back a cursor it already gave
 * (a loop) or more than 10 000 pages is stopped rather than followed forever.
 */
export async function listAllPages<P extends Page, T>(
  fetch: (cursor: string | undefined) => Promise<P>,
  items: (page: P) => T[],
): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; n < 10_000; n++) {
    const page = await fetch(cursor);
    all.push(...items(page));
    cursor = page.nextCursor;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return all;
}

/** The name an item is exposed under: its own, or `<upstream>__<name>` where two upstreams share it. */
export function exposedName(name: string, upstream: string, clashing: boolean): string {
  return clashing ? `${upstream}__${name}` : name;
}

/** Names that more than one upstream serves. */
export function clashes(lists: Array<{ names: string[] }>): Set<string> {
  const count = new Map<string, number>();
  for (const l of lists) for (const n of new Set(l.names)) count.set(n, (count.get(n) ?? 0) + 1);
  return new Set([...count].filter(([, c]) => c > 1).map(([n]) => n));
}

/**
 * A tool the gateway can serve. A tool that must run as an MCP task (`execution.taskSupport:
 * 'required'`) cannot: its result arrives later through the task API, past the policy's one answer.
 */
export function servable(tool: McpTool): boolean {
  return tool.execution?.taskSupport !== 'required';
}

/** One upstream's tools, all pages of them. */
export async function listTools(client: Client): Promise<McpTool[]> {
  return listAllPages(
    (cursor) => client.listTools(cursor === undefined ? {} : { cursor }),
    (p) => p.tools,
  );
}

/**
 * The upstreams' tools by the name the gateway lists them under: namespaced `<upstream>__<tool>`
 * where two upstreams share a name.
 */
export function toolRoutes(
  upstreams: Array<{ upstream: string; client: Client; tools: McpTool[] }>,
): Map<string, Route> {
  const clash = clashes(upstreams.map((u) => ({ names: u.tools.map((t) => t.name) })));
  const routes = new Map<string, Route>();
  for (const u of upstreams)
    for (const t of u.tools) {
      const exposed = exposedName(t.name, u.upstream, clash.has(t.name));
      routes.set(exposed, { upstream: u.upstream, client: u.client, tool: t, name: exposed });
    }
  return routes;
}

/** The tools of connected upstream clients as routes (every page; task-required tools left out). */
export async function listRoutes(upstreams: Record<string, Client>): Promise<Map<string, Route>> {
  const listed = await Promise.all(
    Object.entries(upstreams).map(async ([upstream, client]) => ({
      upstream,
      client,
      tools: (await listTools(client)).filter(servable),
    })),
  );
  return toolRoutes(listed);
}

/** Reviewers' edits are validated against the upstream tool's own JSON Schema. */
export function toolSchemas(routes: Map<string, Route>): Record<string, ToolSchemaEntry> {
  const schemas: Record<string, ToolSchemaEntry> = {};
  for (const r of routes.values()) {
    try {
      schemas[r.name] = {
        schema: z.fromJSONSchema(
          r.tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0],
        ) as ToolSchemaEntry['schema'],
        ...(r.tool.description ? { description: r.tool.description } : {}),
      };
    } catch {
      // A schema zod cannot read: the tool can be approved, rejected or answered, not edited.
    }
  }
  return schemas;
}
