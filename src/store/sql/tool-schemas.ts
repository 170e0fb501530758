import type { StoredToolSchema, ToolSchemaStoreOps } from '../types.ts';
import { num, type OpShape, type SqlExecutor } from './executor.ts';

/** Tool schemas as integrations listed them: one row per tool name, the latest listing wins. */
export function toolSchemaOps(db: SqlExecutor): ToolSchemaStoreOps {
  return {
    async putToolSchemas(schemas, now) {
      for (const s of schemas)
        await db.run(
          `INSERT INTO il_tool_schemas (name, source, schema, description, updated_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (name) DO UPDATE SET source = excluded.source, schema = excluded.schema,
             description = excluded.description, updated_at = excluded.updated_at`,
          [s.name, s.source, JSON.stringify(s.schema), s.description, now],
        );
    },
    async getToolSchema(name) {
      const [row] = await db.all(`SELECT * FROM il_tool_schemas WHERE name = $1`, [name]);
      if (!row) return null;
      return {
        name: String(row.name),
        source: String(row.source),
        schema: JSON.parse(String(row.schema)) as unknown,
        description: typeof row.description === 'string' ? row.description : null,
        updatedAt: num(row.updated_at),
      } satisfies StoredToolSchema;
    },
  };
}

export const toolSchemaShapes: { [K in keyof ReturnType<typeof toolSchemaOps>]: OpShape } = {
  putToolSchemas: 'multi',
  getToolSchema: 'read',
};
