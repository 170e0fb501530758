import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, definePolicy, type PolicyConfig } from '../core/index.ts';
import type { Interlock, ThreadRunner, ToolSchemaEntry } from '../engine/index.ts';
import type { RoutingConfig, SlackApp } from '../notify/index.ts';

/** What `interlock.config.ts` exports (default export). */
export interface InterlockConfig {
  /** The policy for every tool the agents may call. */
  policy: PolicyConfig;
  /** Build the agents over the engine; threads are resumed by the agent whose name they carry. */
  agents: (ctx: { interlock: Interlock }) => ThreadRunner[] | Promise<ThreadRunner[]>;
  /**
   * Argument schemas (zod) of tools whose agents run elsewhere — an app that runs a framework adapter
   * and resumes its own threads — by tool name. Reviewers' edits of their requests (web UI, API, CLI,
   * Slack) are checked against them; without a schema a tool's requests can be approved, rejected or
   * answered, not edited. Agents built in `agents` register their own tools' schemas. The object form
   * may also name the call's `subject` arguments and `amount` (related requests on the card) and
   * `facts`, read again when a reviewer opens the card (see ToolSchemaEntry).
   * @example
   * tools: { issue_refund: { schema: refundArgs, subject: ['orderId'], facts: ({ orderId }) => orders.facts(orderId) } },
   */
  tools?: Record<
    string,
    | z.ZodType<Record<string, unknown>>
    | (Pick<ToolSchemaEntry, 'description' | 'subject' | 'amount' | 'facts'> & {
        schema: z.ZodType<Record<string, unknown>>;
      })
  >;
  /**
   * Notification channels and routes by role; without it the web queue (live events) is the only channel.
   * With `slack` configured, `ctx.slack.channel('C…')` is a channel whose messages decide in Slack.
   */
  notifications?: (env: NodeJS.ProcessEnv, ctx: { slack?: SlackApp }) => RoutingConfig;
  /**
   * The Slack app reviewers decide in (docs/notifications.md): its bot token and signing secret, usually
   * `env.SLACK_BOT_TOKEN` and `env.SLACK_SIGNING_SECRET`. Return undefined to run without it.
   */
  slack?: (env: NodeJS.ProcessEnv) => { botToken: string; signingSecret: string; apiUrl?: string } | undefined;
  /** Reviewer roles the deployment uses (for demo reviewers and `reviewers add` hints). */
  roles?: string[];
  /** First-run conveniences for a demo deployment. */
  demo?: {
    /** Reviewers created (tokens printed once) when the database has none. */
    reviewers?: Array<{ name: string; roles: string[] }>;
    /** Conversations started by `--seed-demo`, so the queue is not empty. */
    conversations?: Array<{ agent: string; input: string }>;
  };
  /** Printed on start: what runs and how to use it. */
  describe?: () => string;
  /** The MCP gateway (`interlock mcp`): the upstream MCP servers whose tools it serves through the policy. */
  mcp?: {
    /** By a short name: a command to start over stdio, or a Streamable HTTP URL. */
    upstreams: Record<string, McpUpstream>;
    /** How long a gated call is held open for a decision (ms; default 20 000, keep it under the client's timeout). */
    holdMs?: number;
    /** How long a decided call stays collectable by a repeat after its decision (ms; default: until the request's expiry). */
    repeatWindowMs?: number;
    /** How long an "approve and trust" lasts within a client's session (ms; default 1 hour). */
    trustTtlMs?: number;
    /** Verdicts for tools the policy has no rules for, from their annotations (see `createMcpGateway`). */
    hints?: {
      readOnly?: 'auto' | 'notify' | 'approve' | 'block';
      other?: 'auto' | 'notify' | 'approve' | 'block';
      role?: string;
      /** Upstreams whose `readOnlyHint` is trusted; any other upstream's tools get `other`. */
      trustAnnotationsOf?: string[];
    };
    /**
     * `interlock mcp --http`: who may connect and how long sessions live (docs/adapters/mcp.md, "Over HTTP").
     * @example
     * http: { tokens: [{ principal: 'alice', sha256: '3f5c…' }], allowedHosts: ['gateway.example.com:8931'] }
     */
    http?: {
      /** Bearer tokens by principal, as `interlock mcp token NAME` prints them; with none, only this machine may connect. */
      tokens?: Array<{ principal: string; sha256: string }>;
      /** Host header values answered (`name:port`, or a name for any port); default the loopback names with the port. */
      allowedHosts?: string[];
      /** Origin header values answered (browser clients); default the loopback origins of the port. */
      allowedOrigins?: string[];
      /** A session with no open request for this long is closed (ms; default 30 minutes). */
      sessionIdleMs?: number;
    };
  };
}

/** An upstream MCP server of the gateway. */
export type McpUpstream = { command: string; args?: string[]; env?: Record<string, string> } | { url: string };

/**
 * Declare a configuration with type checking.
 * @example
 * export default defineConfig({ policy, agents: ({ interlock }) => [createAgent({ ..., interlock })] });
 */
export function defineConfig(config: InterlockConfig): InterlockConfig {
  return config;
}

const configSchema = z.object({
  policy: z.object({ tools: z.record(z.string(), z.unknown()) }).passthrough(),
  agents: z.custom<InterlockConfig['agents']>(
    (v) => typeof v === 'function',
    'must be a function ({ interlock }) => agents (createAgent, or an adapter agent)',
  ),
  tools: z
    .record(
      z.string(),
      z.custom<NonNullable<InterlockConfig['tools']>[string]>(
        (v) => isZod(v) || (typeof v === 'object' && v !== null && isZod((v as { schema?: unknown }).schema)),
        "must be a zod schema of the tool's arguments, or { schema, description }",
      ),
    )
    .optional(),
  notifications: z
    .custom<InterlockConfig['notifications']>(
      (v) => typeof v === 'function',
      'must be a function (env) => ({ channels, routes, default? })',
    )
    .optional(),
  slack: z
    .custom<InterlockConfig['slack']>(
      (v) => typeof v === 'function',
      'must be a function (env) => ({ botToken: env.SLACK_BOT_TOKEN, signingSecret: env.SLACK_SIGNING_SECRET })',
    )
    .optional(),
  roles: z.array(z.string().min(1)).optional(),
  demo: z
    .object({
      reviewers: z.array(z.object({ name: z.string().min(1), roles: z.array(z.string().min(1)).min(1) })).optional(),
      conversations: z.array(z.object({ agent: z.string(), input: z.string() })).optional(),
    })
    .optional(),
  describe: z.custom<() => string>((v) => typeof v === 'function').optional(),
  mcp: z
    .object({
      upstreams: z.record(
        z.string().regex(/^[a-z][a-z0-9_-]*$/i, 'upstream names are letters, digits, _ and -'),
        z.union([
          z.strictObject({
            command: z.string().min(1),
            args: z.array(z.string()).optional(),
            env: z.record(z.string(), z.string()).optional(),
          }),
          z.strictObject({ url: z.url() }),
        ]),
      ),
      holdMs: z.number().int().min(0).max(600_000).optional(),
      repeatWindowMs: z.number().int().min(0).optional(),
      trustTtlMs: z.number().int().min(0).optional(),
      hints: z
        .strictObject({
          readOnly: z.enum(['auto', 'notify', 'approve', 'block']).optional(),
          other: z.enum(['auto', 'notify', 'approve', 'block']).optional(),
          role: z.string().min(1).optional(),
          trustAnnotationsOf: z.array(z.string().min(1)).optional(),
        })
        .optional(),
      http: z
        .strictObject({
          tokens: z
            .array(
              z.strictObject({
                principal: z.string().min(1),
                sha256: z
                  .string()
                  .regex(/^[0-9a-f]{64}$/i, 'the 64 hex digits `interlock mcp token NAME` prints (never the token)'),
              }),
            )
            .optional(),
          allowedHosts: z.array(z.string().min(1)).optional(),
          allowedOrigins: z.array(z.string().min(1)).optional(),
          sessionIdleMs: z.number().int().min(1).optional(),
        })
        .optional(),
    })
    .optional(),
});

function isZod(v: unknown): boolean {
  return typeof v === 'object' && v !== null && typeof (v as { safeParse?: unknown }).safeParse === 'function';
}

/** The configuration's `tools` as the engine's schema entries (`createInterlock({ tools })`). */
export function toolEntries(tools: InterlockConfig['tools']): Record<string, ToolSchemaEntry> {
  const out: Record<string, ToolSchemaEntry> = {};
  for (const [name, t] of Object.entries(tools ?? {}))
    out[name] = 'schema' in t && isZod(t.schema) ? { ...t } : { schema: t as z.ZodType<Record<string, unknown>> };
  return out;
}

/** The files looked for in the working folder, in order (`interlock init --mcp` writes the .mjs: ESM whatever package.json says). */
const CONFIG_FILES = ['interlock.config.ts', 'interlock.config.mjs'];

/** The bundled example, served in Interlock's own repository when there is no `interlock.config.ts` (the package does not ship it). */
export const DEFAULT_CONFIG_PATH = fileURLToPath(new URL('../../examples/order-support/config.ts', import.meta.url));

/**
 * Find and load the configuration: `INTERLOCK_CONFIG`, else `./interlock.config.ts` (or `.mjs`),
 * else the bundled order-support example. Invalid configurations are refused
 * here, before anything starts, with every problem listed.
 */
export async function loadConfig(
  explicit?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ config: InterlockConfig; path: string }> {
  const candidate = explicit ?? env.INTERLOCK_CONFIG ?? CONFIG_FILES.find((f) => existsSync(f));
  const path = candidate ? resolve(candidate) : DEFAULT_CONFIG_PATH;
  if (!existsSync(path)) {
    throw new ConfigError(
      candidate
        ? `No configuration at ${path}. Create it (see docs/deploying.md), or unset INTERLOCK_CONFIG.`
        : `No interlock.config.ts in ${process.cwd()}. Run \`npx interlock init\` to write a starter one, or point INTERLOCK_CONFIG / --config at yours.`,
      { path },
    );
  }
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (err) {
    throw new ConfigError(`Cannot load ${path}: ${(err as Error).message}`, { path });
  }
  const parsed = configSchema.safeParse(mod.default);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(default export)'}: ${i.message}`);
    throw new ConfigError(
      `Invalid configuration in ${path} (its default export must be defineConfig({...})):\n  ${issues.join('\n  ')}`,
      { path, issues },
    );
  }
  const config = mod.default as InterlockConfig;
  definePolicy(config.policy); // refuse a bad policy now, with its own message
  return { config, path };
}
