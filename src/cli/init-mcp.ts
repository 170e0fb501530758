import { existsSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { InterlockUsageError } from '../core/index.ts';
import type { McpUpstream } from '../service/index.ts';
import { EXIT, UsageError, type Io } from './output.ts';

/** The file `interlock init --mcp` writes: ESM by its extension, so no package.json setting is needed. */
export const MCP_CONFIG_FILE = 'interlock.config.mjs';

/** A tool as init found it on its upstream, under the name the gateway lists it by. */
export interface InitTool {
  name: string;
  upstream: string;
  annotations: McpTool['annotations'];
}

/**
 * An upstream's command as the gateway will run it from any folder (an MCP host starts it wherever it
 * likes): a command or argument naming something in `dir` (`./files`, `node_modules/.bin/x`, a bare
 * command installed in `dir/node_modules/.bin`) becomes an absolute path.
 */
export function anchored(u: McpUpstream, dir: string): McpUpstream {
  if ('url' in u) return u;
  // `./x` and `../x` always name a path; `a/b` does when it exists here (else it may be a package name).
  const dotted = (w: string) => /^\.\.?(\/|$)/.test(w);
  const local = (w: string) => dotted(w) || (w.includes('/') && !isAbsolute(w) && existsSync(resolve(dir, w)));
  const bin = join(dir, 'node_modules', '.bin', u.command);
  const command = local(u.command)
    ? resolve(dir, u.command)
    : !u.command.includes('/') && existsSync(bin)
      ? bin
      : u.command;
  return { ...u, command, args: (u.args ?? []).map((a) => (local(a) ? resolve(dir, a) : a)) };
}

/** The policy rule init writes for a tool: its annotations say whether it only reads. */
function ruleFor(t: InitTool, role: string): string {
  const a = t.annotations ?? {};
  const id = JSON.stringify(t.name.replace(/[^A-Za-z0-9_-]/g, '-'));
  if (a.readOnlyHint === true && a.destructiveHint !== true)
    return `{ id: ${id}, tier: 'auto', reason: 'only reads (${t.upstream} marks it read-only)' }`;
  const why = a.destructiveHint === true ? 'may delete or overwrite' : 'changes something';
  return `{ id: ${id}, tier: 'approve', role: ${JSON.stringify(role)}, reason: ${JSON.stringify(`${t.name} ${why}`)}, timeout: '1h' }`;
}

/** The gateway's configuration: one rule per tool found, the upstreams, and hints for tools added later. */
export function mcpConfigText(
  upstreams: Record<string, McpUpstream>,
  tools: readonly InitTool[],
  role: string,
): string {
  const rules = tools.map((t) => `      ${JSON.stringify(t.name)}: [${ruleFor(t, role)}],`).join('\n');
  const names = Object.keys(upstreams);
  return `// The MCP gateway's configuration: what \`interlock mcp --config <this file>\` loads.
// Written by \`interlock init --mcp\` from the tools its upstreams listed; edit the rules freely.
// Docs: docs/adapters/mcp.md in the interlock-approvals package.
/** @type {import('interlock-approvals').InterlockConfig} */
export default {
  policy: {
    tools: {
      // Tools the upstream marks read-only run at once (auto); every other one waits for a ${role}.
${rules}
    },
  },
  // The gateway runs no agent of its own: the MCP client is the agent.
  agents: () => [],
  roles: [${JSON.stringify(role)}],
  mcp: {
    upstreams: ${JSON.stringify(upstreams, null, 2).replace(/\n/g, '\n    ')},
    // A tool with no rule above (one an upstream adds later) gets its tier from its annotations: read-only
    // ones run, the rest wait for a ${role}. Annotations are the upstream's own claims: only the upstreams
    // listed in trustAnnotationsOf are believed; drop this block to block such tools instead.
    hints: { readOnly: 'auto', other: 'approve', role: ${JSON.stringify(role)}, trustAnnotationsOf: ${JSON.stringify(names)} },
  },
};
`;
}

/** What to paste into an MCP host's configuration (Claude Desktop, the MCP Inspector): the installed binary. */
export function clientJson(name: string, dir: string, config: string): string {
  return JSON.stringify(
    {
      mcpServers: {
        [name]: {
          command: join(dir, 'node_modules', '.bin', 'interlock'),
          args: ['mcp', '--config', config],
          env: { INTERLOCK_DATA_DIR: join(dir, 'data') },
        },
      },
    },
    null,
    2,
  );
}

/** Options of `interlock init --mcp`, parsed. */
interface McpInitArgs {
  dir: string;
  role: string;
  /** `--upstream` values: NAME=COMMAND or NAME=URL, as `interlock mcp` takes them. */
  upstreams: string[];
}

/**
 * `interlock init --mcp --upstream NAME=COMMAND… [--role ROLE] [--dir DIR]`: start each upstream, list
 * its tools, write interlock.config.mjs (read-only tools auto, the rest approved by ROLE), and print
 * the MCP host's JSON and the reviewer's first step.
 */
export async function initMcp(o: McpInitArgs, io: Io): Promise<number> {
  if (o.upstreams.length === 0)
    throw new UsageError(
      'interlock init --mcp needs the server to put behind the gateway: --upstream NAME=COMMAND (e.g. --upstream "files=npx mcp-server-filesystem ./files")',
    );
  const path = resolve(o.dir, MCP_CONFIG_FILE);
  if (existsSync(path))
    throw new InterlockUsageError(
      'config_exists',
      `${path} already exists; nothing was written. Edit it, or move it away and run interlock init --mcp again.`,
      { details: { path } },
    );
  // Loaded here: the MCP SDK is an optional peer, needed only by the gateway's commands.
  const { parseUpstream } = await import('./mcp-upstreams.ts');
  const specs = o.upstreams.map(parseUpstream);
  const first = specs[0]![0];
  const upstreams = Object.fromEntries(specs.map(([n, u]) => [n, anchored(u, o.dir)]));
  const tools = await listUpstreamTools(upstreams);
  writeFileSync(path, mcpConfigText(upstreams, tools, o.role), { flag: 'wx' });
  const auto = tools.filter((t) => /tier: 'auto'/.test(ruleFor(t, o.role))).map((t) => t.name);
  const gated = tools.filter((t) => !auto.includes(t.name)).map((t) => t.name);
  const bin = join(o.dir, 'node_modules', '.bin', 'interlock');
  io.out(`wrote ${path}
  auto (${auto.length}): ${auto.join(', ') || '—'}
  approved by a ${o.role} (${gated.length}): ${gated.join(', ') || '—'}
${existsSync(bin) ? '' : `\nnote: ${bin} is not there yet; install the package in this folder: npm install interlock-approvals @modelcontextprotocol/sdk\n`}
1. Add it to your MCP host. Claude Desktop: claude_desktop_config.json; the MCP Inspector:
   save it as mcp.json and run  npx @modelcontextprotocol/inspector --config mcp.json --server ${first}

${clientJson(first, o.dir, path)}

2. Make a reviewer (run here; the gateway and the reviewers share ${join(o.dir, 'data')}):
   npx interlock reviewers add --name "Sam" --roles ${o.role}
3. Decide what waits: npx interlock serve --config ${MCP_CONFIG_FILE}   (web UI on http://localhost:3000)
   or from here: npx interlock approvals list, then npx interlock approvals decide ID --approve`);
  return EXIT.ok;
}

/** Start each upstream, list its tools as the gateway would name them, and stop it again. */
async function listUpstreamTools(upstreams: Record<string, McpUpstream>): Promise<InitTool[]> {
  const [{ connect }, { listRoutes }] = await Promise.all([
    import('./mcp-upstreams.ts'),
    import('../adapters/mcp/upstreams.ts'),
  ]);
  const clients: Record<string, Awaited<ReturnType<typeof connect>>> = {};
  try {
    for (const [name, u] of Object.entries(upstreams)) {
      try {
        clients[name] = await connect(name, u);
      } catch (err) {
        throw new UsageError(
          `Could not start upstream "${name}" (${'url' in u ? u.url : [u.command, ...(u.args ?? [])].join(' ')}) to list its tools: ${(err as Error).message}. Check that the command runs on its own in this folder.`,
        );
      }
    }
    const routes = await listRoutes(clients);
    return [...routes.values()].map((r) => ({ name: r.name, upstream: r.upstream, annotations: r.tool.annotations }));
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close().catch(() => undefined)));
  }
}
