// Renders docs/api.md from the OpenAPI document the server serves, so the two never disagree.
// Run: npm run docs:api   (src/server/api-docs.test.ts fails when docs/api.md is out of date)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/server/index.ts';
import { webApiPaths } from '../src/web/openapi-paths.ts';

type Param = {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: { type?: string; enum?: unknown[]; minimum?: number; maximum?: number };
};
type Op = {
  summary?: string;
  description?: string;
  parameters?: Param[];
  responses?: Record<string, { description?: string }>;
};

function describeParam(p: Param): string {
  const s = p.schema ?? {};
  const kind = s.enum ? s.enum.map((e) => `\`${String(e)}\``).join(', ') : (s.type ?? '');
  const range = s.minimum !== undefined || s.maximum !== undefined ? ` (${s.minimum ?? ''}..${s.maximum ?? ''})` : '';
  return [p.description, kind ? `${kind}${range}` : ''].filter(Boolean).join('; ');
}

const STATUS: Record<string, string> = {
  '400': 'invalid input (`invalid_input`, with per-field `details.issues`)',
  '401': 'no token, or a bad or revoked one',
  '403': 'not allowed (`forbidden_role`, `self_approval`, `duplicate_reviewer`, operator only)',
  '404': 'unknown id',
  '409': '`stale_version`, `action_hash_mismatch` or `already_resolved`',
  '410': '`request_expired`: the timeout default applies',
  '413': 'body too large',
  '422': '`reason_required`: the request’s rule needs a reason to reject (send it as `message`)',
  '429': 'too many decisions; retry after `Retry-After` seconds',
  '501': 'no threads adapter configured',
  '503': 'the store does not answer',
};

/** The Markdown reference of the HTTP API. */
export function renderApiDocs(): string {
  const doc = openApiDocument({}) as unknown as {
    info: { title: string; version: string };
    paths: Record<string, Record<string, Op>>;
  };
  // The service mounts the web UI, whose endpoints are part of the API it serves.
  Object.assign(doc.paths, webApiPaths());
  const lines = [
    '# HTTP API reference',
    '',
    `Generated from the OpenAPI document (\`GET /openapi.json\`, ${doc.info.title} ${doc.info.version}) by \`npm run docs:api\`.`,
    '',
    'Authentication: `Authorization: Bearer <token>` (tokens from `interlock reviewers add`). Errors are',
    '`{ "error": { "code", "message", "details"? } }` with a stable `code`. Any route may answer 503',
    '`store_unavailable` with `Retry-After` while the database is unreachable, restarting or busy: retry then.',
    '',
  ];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      lines.push(`## ${method.toUpperCase()} ${path}`, '', op.summary ?? '', '');
      if (op.description) lines.push(op.description, '');
      const params = op.parameters ?? [];
      if (params.length) {
        lines.push('| parameter | in | required | meaning |', '|---|---|---|---|');
        for (const p of params)
          lines.push(
            `| \`${p.name}\` | ${p.in} | ${p.required ? 'yes' : 'no'} | ${describeParam(p).replace(/\|/g, '\\|')} |`,
          );
        lines.push('');
      }
      const responses = Object.entries(op.responses ?? {});
      if (responses.length) {
        lines.push('| status | meaning |', '|---|---|');
        for (const [status, r] of responses)
          lines.push(`| ${status} | ${(r.description || STATUS[status] || '').replace(/\|/g, '\\|')} |`);
        lines.push('');
      }
    }
  }
  return lines.join('\n');
}

if (import.meta.main) {
  writeFileSync(fileURLToPath(new URL('../docs/api.md', import.meta.url)), renderApiDocs());
}
