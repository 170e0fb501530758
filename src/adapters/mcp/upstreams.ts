import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import type { ToolSchemaEntry } from '../../engine/index.ts';
import type { Route } from './types.ts';

/** The upstreams' tools by the name the gateway lists them under: namespaced `<upstream>__<tool>` where two upstreams share a name. */
export async function listRoutes(upstreams: Record<string, Client>): Promise<Map<string, Route>> {
  const listed = await Promise.all(
    Object.entries(upstreams).map(async ([upstream, client]) => ({
      upstream,
      client,
      tools: (await client.listTools()).tools,
    })),
  );
  const count = new Map<string, number>();
  for (const u of listed) for (const t of u.tools) count.set(t.name, (count.get(t.name) ?? 0) + 1);
  const routes = new Map<string, Route>();
  for (const u of listed)
    for (const t of u.tools) {
      const exposed = (count.get(t.name) ?? 0) > 1 ? `${u.upstream}__${t.name}` : t.name;
      routes.set(exposed, { upstream: u.upstream, client: u.client, tool: t, name: exposed });
    }
  return routes;
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
