import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { readFileSync } from 'node:fs';
import { createInterlock, type Interlock, type ThreadRunner } from '../engine/index.ts';
import { openStore } from '../store/index.ts';
import type { ReviewerRow, Store } from '../store/types.ts';
import { hashToken } from '../server/index.ts';
import type { PolicyConfig } from '../core/index.ts';
import { loadConfig, toolEntries, type InterlockConfig } from '../service/index.ts';
import { UsageError, type Output } from './output.ts';

/** Parsed flags of one command. */
export type Flags = Record<string, string | boolean | undefined>;

/** Parse `argv` strictly: an unknown flag is a usage error (exit 2) naming it. */
export function flags(argv: string[], options: ParseArgsOptionsConfig): { values: Flags; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: r.values as Flags, positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A required string flag. */
export function str(v: Flags[string], name: string): string {
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** What {@link engine} opened; close `store` when done. */
export interface CliEngine {
  interlock: Interlock;
  store: Store;
  /** The configuration and its agents, when a configuration was asked for. */
  config?: InterlockConfig;
  agents?: ThreadRunner[];
}

/**
 * The engine over the configured database. With `config` (a path, or `true` for
 * the usual lookup: `INTERLOCK_CONFIG`, ./interlock.config.ts, the bundled example)
 * it carries the configuration's policy and its agents' tools, as `serve` does:
 * edits are checked against the same schemas as over HTTP. Read-only commands
 * pass nothing and get an empty policy.
 */
export async function engine(io: Output, config?: string | true): Promise<CliEngine> {
  // Load the configuration first: a bad one is refused before the database is opened.
  const loaded =
    config === undefined ? undefined : (await loadConfig(config === true ? undefined : config, io.env)).config;
  const store = await openStore(io.env.DATABASE_URL);
  const policy: PolicyConfig = loaded?.policy ?? { tools: {} };
  const interlock = createInterlock({ store, policy, tools: toolEntries(loaded?.tools) });
  if (!loaded) return { interlock, store };
  try {
    // Building the agents registers their tools' schemas with the engine; nothing runs.
    const agents = await loaded.agents({ interlock });
    return { interlock, store, config: loaded, agents };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Flags that say which reviewer is acting. */
export const TOKEN_FLAGS = {
  token: { type: 'string' },
  'token-file': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

/**
 * The reviewer's token: `--token-file FILE` (first line), else `INTERLOCK_TOKEN`,
 * else `--token` (which other users of the machine can read in `ps`; said on stderr).
 */
export function readToken(values: Flags, io: Output): string {
  const file = values['token-file'];
  if (typeof file === 'string') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`--token-file ${file}: cannot read it (${(err as Error).message}).`);
    }
    const token = text.split(/\r?\n/)[0]?.trim();
    if (!token) throw new UsageError(`--token-file ${file} is empty; put the reviewer token on its first line.`);
    return token;
  }
  if (io.env.INTERLOCK_TOKEN) return io.env.INTERLOCK_TOKEN;
  if (typeof values.token === 'string' && values.token !== '') {
    io.err(
      'note: a token on the command line is visible to other users in `ps`; prefer INTERLOCK_TOKEN or --token-file FILE.',
    );
    return values.token;
  }
  throw new UsageError('a reviewer token is needed: INTERLOCK_TOKEN=…, --token-file FILE, or --token TOKEN');
}

/** The active reviewer a token belongs to, or undefined (said on stderr) when it is unknown or revoked. */
export async function reviewerByToken(store: Store, token: string, io: Output): Promise<ReviewerRow | undefined> {
  const reviewer = await store.getReviewerByTokenHash(hashToken(token));
  if (!reviewer || reviewer.revoked) {
    io.err(
      reviewer
        ? 'this token was revoked; ask an operator for a new one'
        : 'unknown token; create one with interlock reviewers add (npm run interlock -- reviewers add inside the repository)',
    );
    return undefined;
  }
  return reviewer;
}

/**
 * Names for actors: `reviewer:<id>` becomes the reviewer's name, so output says
 * "edited by Maria Supervisor"; other actors (agent:…, system:…, cli) speak for themselves.
 */
export async function actorNames(store: Pick<Store, 'listReviewers'>): Promise<(actor: string) => string> {
  const names = new Map((await store.listReviewers()).map((r) => [`reviewer:${r.id}`, r.name]));
  return (actor) => {
    const known = names.get(actor) ?? names.get(`reviewer:${actor}`);
    if (known) return known;
    // A process acting on its own: `system:host:pid:random` reads as "system (host, pid N)".
    const sys = /^system:([^:]+):(\d+):[0-9a-f]+(?::run_\w+)?$/.exec(actor);
    if (sys) return `system (${sys[1]}, pid ${sys[2]})`;
    return actor;
  };
}

/** `text` cut to `max` characters, with an ellipsis when cut: one table column stays one line. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
