import type { Decision, DecisionType } from '../core/index.ts';
import { lookAlikeWarning, lookAlikeWords } from '../notify/look-alike.ts';
import { cutLongStrings, EXIT, UsageError, iso, table, type Output } from './output.ts';
import {
  actorNames,
  clip,
  engine,
  flags,
  readToken,
  reviewerByToken,
  TOKEN_FLAGS,
  type CliEngine,
  type Flags,
} from './shared.ts';

const DECISIONS: Record<string, DecisionType> = {
  approve: 'approve',
  reject: 'reject',
  respond: 'respond',
  edit: 'edit',
};
const DONE: Record<DecisionType, string> = {
  approve: 'approved',
  reject: 'rejected',
  respond: 'responded',
  edit: 'edited',
};

const DECIDE_USAGE =
  'usage: interlock approvals decide <request-id> --approve|--reject|--respond|--edit [--message TEXT] [--args JSON] [--trust] [--version N --hash H] [--config FILE] (token: INTERLOCK_TOKEN, --token-file FILE or --token T)';

/** `approvals list`: pending requests (or `--status`), soonest to expire first. */
async function listApprovals({ interlock }: CliEngine, values: Flags, io: Output): Promise<number> {
  const { items } = await interlock.listRequests({
    status: ((values.status as string | undefined) ?? 'pending') as never,
    ...(values.role ? { roles: [values.role as string] } : {}),
    ...(values.tool ? { tool: values.tool as string } : {}),
    ...(values.thread ? { threadId: values.thread as string } : {}),
    order: 'expiry',
    limit: Number(values.limit ?? 50),
  });
  if (values.json) io.json(items);
  else {
    const rows = items.map((r) => [
      r.id,
      r.tool,
      lookAlikeChip(clip(JSON.stringify(r.args), 48), r.args),
      r.tier,
      r.role,
      `${r.approvalsReceived}/${r.approvalsRequired}`,
      iso(r.expiresAt),
      r.reason,
    ]);
    io.out(table([['id', 'tool', 'args', 'tier', 'role', 'approvals', 'expires', 'reason'], ...rows]));
  }
  return EXIT.ok;
}

/** A cell with the look-alike chip of `args` after it: `{"to":"pаypal"…} ⚠ look-alike: “pаypal”`. */
function lookAlikeChip(cell: string, args: unknown): string {
  const words = lookAlikeWords(args, 2);
  return words === undefined ? cell : `${cell} ⚠ look-alike: ${words}`;
}

/** Characters of one string value `approvals show` prints before cutting it. */
const SHOW_VALUE_MAX = 500;

/**
 * A JSON value as `approvals show` prints it: each string longer than {@link SHOW_VALUE_MAX} cut,
 * with a line per cut value saying how long it is and how to get it whole.
 */
function showValue(io: Output, label: string, path: string, value: unknown, id: string): void {
  const { value: shown, cuts } = cutLongStrings(value, SHOW_VALUE_MAX, path);
  io.out(`${label}${JSON.stringify(shown)}`);
  for (const c of cuts)
    io.out(
      `          (${c.path} is ${c.length.toLocaleString('en-US')} characters, cut to its first ${SHOW_VALUE_MAX}: \`interlock approvals show ${id} --json\` prints it whole)`,
    );
}

/** `approvals show ID`: one request, its decisions and executions, and the command that decides exactly it. */
async function showApproval(
  { interlock, store }: CliEngine,
  id: string | undefined,
  values: Flags,
  io: Output,
): Promise<number> {
  if (!id) throw new UsageError('usage: interlock approvals show <request-id>');
  const story = await interlock.explain(id);
  if (values.json) {
    io.json(story);
    return EXIT.ok;
  }
  const name = await actorNames(store);
  const r = story.request;
  io.out(`${r.id}  ${r.status}  v${r.version}`);
  io.out(`tool:     ${r.tool}`);
  showValue(io, 'args:     ', 'args', r.args, r.id);
  const lookAlike = lookAlikeWarning(r.args);
  if (lookAlike !== undefined) io.out(`⚠ ${lookAlike}`);
  io.out(`reason:   ${r.reason} (rule ${r.ruleId}, tier ${r.tier})`);
  io.out(`role:     ${r.role}, approvals ${r.approvalsReceived}/${r.approvalsRequired}`);
  io.out(`expires:  ${iso(r.expiresAt)} (then: ${r.onTimeout})`);
  io.out(`version:  ${r.version}`);
  io.out(`hash:     ${r.actionHash}`);
  showValue(io, 'evidence (untrusted, redacted): ', 'evidence', r.evidence, r.id);
  for (const d of story.decisions) io.out(`decision: ${d.type} by ${name(d.by)} at ${iso(d.at)}`);
  for (const e of story.executions) io.out(`executed: ${e.status} (attempts ${e.attempts}, key ${e.key})`);
  if (r.status === 'pending')
    io.out(
      `decide exactly this: interlock approvals decide ${r.id} --approve --version ${r.version} --hash ${r.actionHash}`,
    );
  return EXIT.ok;
}

/** `approvals decide ID --approve|…`: decide as the reviewer whose token is given. */
async function decideApproval(
  { interlock, store }: CliEngine,
  id: string | undefined,
  values: Flags,
  io: Output,
): Promise<number> {
  const chosen = Object.keys(DECISIONS).filter((k) => values[k] === true);
  if (!id || chosen.length !== 1) throw new UsageError(DECIDE_USAGE);
  const pinnedVersion = values.version === undefined ? undefined : Number(values.version);
  if (pinnedVersion !== undefined && (!Number.isInteger(pinnedVersion) || pinnedVersion < 1))
    throw new UsageError(
      `--version must be the version number \`approvals show\` printed, not "${String(values.version)}"`,
    );
  const pinnedHash = values.hash as string | undefined;
  if (pinnedHash !== undefined && !/^[0-9a-f]{64}$/.test(pinnedHash))
    throw new UsageError('--hash must be the 64-character hash `approvals show` printed');
  let args: Record<string, unknown> | undefined;
  if (values.args !== undefined) {
    try {
      args = JSON.parse(values.args as string) as Record<string, unknown>;
    } catch {
      throw new UsageError('--args must be JSON, e.g. --args \'{"orderId":"ORD-1","amount":40}\'');
    }
  }
  const reviewer = await reviewerByToken(store, readToken(values, io), io);
  if (!reviewer) return EXIT.refused;
  const req = await interlock.getRequestOrThrow(id);
  // What the reviewer saw (--version/--hash from `approvals show`), else what is current now.
  const decision: Decision = {
    type: DECISIONS[chosen[0]!]!,
    expectedVersion: pinnedVersion ?? req.version,
    actionHash: pinnedHash ?? req.actionHash,
    ...(args ? { args } : {}),
    ...(values.message !== undefined ? { message: values.message as string } : {}),
    ...(values.trust ? { trust: true } : {}),
  };
  const r = await interlock.decide(id, decision, reviewer);
  io.out(
    `${r.outcome}: ${id} is ${r.request.status}${r.newRequest ? `; new request ${r.newRequest.id} (${r.newRequest.tier}, ${r.newRequest.role})` : ''}`,
  );
  io.out(
    // What now stands: an edit's arguments (on this request, or on the new one it raised), not the original's.
    `${DONE[decision.type]} by ${reviewer.name}: ${req.tool} ${JSON.stringify((r.newRequest ?? r.request).args)} (v${decision.expectedVersion}, hash ${decision.actionHash})`,
  );
  if (pinnedVersion === undefined || pinnedHash === undefined) {
    io.out(
      '(decided on the current version; pass --version and --hash from `interlock approvals show` to decide only what you reviewed)',
    );
  }
  return EXIT.ok;
}

/** `interlock approvals list|show|decide`: the queue from a terminal. */
export async function approvals(argv: string[], io: Output): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = flags(rest, {
    status: { type: 'string' },
    role: { type: 'string' },
    tool: { type: 'string' },
    thread: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    approve: { type: 'boolean' },
    reject: { type: 'boolean' },
    respond: { type: 'boolean' },
    edit: { type: 'boolean' },
    message: { type: 'string' },
    args: { type: 'string' },
    trust: { type: 'boolean' },
    version: { type: 'string' },
    hash: { type: 'string' },
    config: { type: 'string' },
    ...TOKEN_FLAGS,
  });
  // An edit needs the configuration's tools (it is checked against their schemas, and the policy re-runs
  // on it), as `serve` has them; approve, reject and respond need only the database.
  const cli = await engine(
    io,
    sub === 'decide' && (values.edit === true || values.config !== undefined)
      ? ((values.config as string | undefined) ?? true)
      : undefined,
  );
  try {
    if (sub === 'list') return await listApprovals(cli, values, io);
    if (sub === 'show') return await showApproval(cli, positionals[0], values, io);
    if (sub === 'decide') return await decideApproval(cli, positionals[0], values, io);
    throw new UsageError('usage: interlock approvals list|show ID|decide ID …');
  } finally {
    await cli.store.close();
  }
}
