#!/usr/bin/env node
import { InterlockSystemError, InterlockUsageError, InterlockError } from '../core/index.ts';
import * as commands from './commands.ts';
import { init } from './init.ts';
import { EXIT, UsageError, forPeople, processIo, stopQuietlyOnClosedPipe, type Io } from './output.ts';

const HELP = `interlock - durable human approval for AI agents

usage: interlock <command> [options]

  init [--dir DIR]                                 write a starter interlock.config.ts (never overwrites)
  init --mcp --upstream NAME=COMMAND… [--role R]   the MCP gateway's interlock.config.mjs from the upstreams'
                                                   tools (read-only ones auto, the rest approved by R), and
                                                   the JSON for Claude Desktop or the MCP Inspector
  serve [--port N] [--seed-demo] [--config FILE]   API, web UI, worker, sweeper, notifications
  worker [--config FILE]                           resume worker, sweeper and notifications only
  migrate                                          apply database migrations
  reviewers add --name NAME --roles a,b            create a reviewer; prints its token once
  reviewers list | revoke ID
  reviewers link-slack ID SLACK_USER_ID            decide in Slack as this reviewer (Slack member id U…)
  approvals list [--status S] [--role R] [--tool T] [--thread ID] [--json]
  approvals show ID [--json]                       what was proposed, who decided, what ran
  approvals decide ID --approve|--reject|--respond|--edit [--message M] [--args JSON] [--trust]
                   [--version N --hash H]          (as approvals show printed them; a stale one is refused)
                   token: INTERLOCK_TOKEN=…, --token-file FILE, or --token T (visible in ps)
  threads start --agent NAME --input TEXT | show ID | abort ID
  audit verify [--json] [--against SAVED.json]     walk the hash chains; exit 1 if broken or if a chain
                                                   no longer holds the heads an earlier --json saved
  audit show --thread ID | --request ID
  metrics [--window 24h] [--json] [--fast-seconds 10]
                                                   oversight figures: per tool, tier and agent; autonomous
                                                   completion; queue flow; planted checks; reviewers' pace
  mcp [--config FILE] [--upstream NAME=COMMAND|URL]… [--http PORT] [--hold-ms N]
      [--host ADDR] [--session-idle-ms N]          an MCP server that serves upstream MCP servers' tools
                                                   through the policy (stdio; Streamable HTTP with --http:
                                                   sessions, bearer tokens from mcp.http.tokens, Host/Origin
                                                   checks; without tokens 127.0.0.1 only, one principal)
  mcp token NAME                                   a bearer token for principal NAME's MCP client, and the
                                                   mcp.http.tokens line holding its hash

Database: DATABASE_URL=postgres://… or the embedded SQLite under INTERLOCK_DATA_DIR (./data).
Exit codes: 0 ok, 1 check failed, 2 usage error, 3 refused, 4 system error.`;

const COMMANDS = ['init', 'serve', 'worker', 'migrate', 'reviewers', 'approvals', 'threads', 'audit', 'metrics', 'mcp'];

/** `interlock CMD --help`: the lines of HELP about CMD (with their continuation lines), and nothing else runs. */
export function helpFor(cmd: string): string {
  const lines = HELP.split('\n');
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    const word = /^ {2}(\S+)/.exec(line)?.[1];
    if (word !== undefined) inside = word === cmd;
    else if (!/^ {4,}\S/.test(line)) inside = false;
    if (inside) out.push(word !== undefined ? `interlock ${line.trim()}` : line);
  }
  const tail = lines.filter((l) => l.startsWith('Database:') || l.startsWith('Exit codes:'));
  return `usage: ${out.join('\n       ')}\n\n${tail.join('\n')}`;
}

/** Run the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], raw: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv;
  if (raw === processIo) stopQuietlyOnClosedPipe();
  const io = forPeople(raw);
  // Every command answers --help (and -h) and does nothing else.
  if (cmd && COMMANDS.includes(cmd) && (rest.includes('--help') || rest.includes('-h'))) {
    io.out(helpFor(cmd));
    return EXIT.ok;
  }
  try {
    switch (cmd) {
      case 'init':
        return await init(rest, io);
      case 'serve':
        return await commands.serve(rest, io);
      case 'worker':
        return await commands.worker(rest, io);
      case 'migrate':
        return await commands.migrate(rest, io);
      case 'reviewers':
        return await commands.reviewers(rest, io);
      case 'approvals':
        return await commands.approvals(rest, io);
      case 'threads':
        return await commands.threads(rest, io);
      case 'audit':
        return await commands.audit(rest, io);
      case 'metrics':
        return await commands.metrics(rest, io);
      case 'mcp':
        // Loaded only here: the MCP SDK is an optional peer dependency.
        return await (await import('./mcp.ts')).mcp(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(HELP);
        return cmd === undefined ? EXIT.usage : EXIT.ok;
      default:
        io.err(`unknown command "${cmd}"\n\n${HELP}`);
        return EXIT.usage;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`interlock ${cmd}: ${err.message}`);
      return EXIT.usage;
    }
    if (err instanceof InterlockUsageError) {
      io.err(`refused (${err.code}): ${err.message}`);
      return EXIT.refused;
    }
    if (err instanceof InterlockSystemError || err instanceof InterlockError) {
      io.err(`error (${err.code}): ${err.message}`);
      return EXIT.system;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.system;
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
