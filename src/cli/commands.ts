import { readFileSync } from 'node:fs';
import { openStore } from '../store/index.ts';
import { auditEvent } from '../engine/index.ts';
import { createReviewer } from '../server/index.ts';
import type { AuditFindings, ChainHead } from '../core/index.ts';
import { loadConfig, startService } from '../service/index.ts';
import { EXIT, UsageError, iso, table, type Output } from './output.ts';
import { actorNames, engine, flags, str } from './shared.ts';

export { approvals } from './approvals.ts';
export { metrics } from './metrics.ts';
export { threads } from './threads.ts';

export async function serve(argv: string[], io: Output, worker = true): Promise<number> {
  const { values } = flags(argv, {
    port: { type: 'string' },
    'seed-demo': { type: 'boolean' },
    config: { type: 'string' },
    'no-worker': { type: 'boolean' },
    host: { type: 'string' },
  });
  const { config, path } = await loadConfig(values.config as string | undefined, io.env);
  const port = Number(values.port ?? io.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, not "${String(values.port ?? io.env.PORT)}"`);
  const svc = await startService({
    config,
    http: worker !== false ? true : false,
    worker: worker && !values['no-worker'],
    port,
    ...(values.host ? { hostname: values.host as string } : {}),
    seedDemo: values['seed-demo'] === true,
    log: (l) => io.out(l),
  });
  const backend =
    svc.store.name === 'postgres'
      ? 'PostgreSQL (DATABASE_URL)'
      : `embedded SQLite in ${io.env.INTERLOCK_DATA_DIR ?? './data'}`;
  io.out(`Interlock is running at ${svc.url}  (${backend})`);
  io.out(`config: ${path}${config.describe ? ` - ${config.describe()}` : ''}`);
  if (svc.demoTokens.length) {
    io.out('');
    io.out('Demo reviewers (tokens are shown once; only their hashes are stored):');
    io.out(table([['name', 'roles', 'token'], ...svc.demoTokens.map((t) => [t.name, t.roles.join(','), t.token])]));
    io.out(`Sign in at ${svc.url} with a token. Start conversations: npm start -- --seed-demo`);
  } else if (config.demo?.reviewers?.length) {
    // Demo tokens are printed once, when the reviewers are created; on later starts say how to get one.
    io.out('');
    io.out(`Reviewers exist already: their tokens were printed when they were created, and only hashes are kept.`);
    io.out(
      `A new token: ${cliName()} reviewers add --name "Your Name" --roles ${config.roles?.join(',') ?? 'supervisor'}`,
    );
    io.out(`(or start on a fresh database: INTERLOCK_DATA_DIR=./data-fresh, and the demo reviewers are created again)`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  io.out('stopping: finishing work in hand…');
  await svc.close();
  return EXIT.ok;
}

/** How to run this command where the user is: `npm run interlock --` inside Interlock's repository, `npx interlock` elsewhere. */
function cliName(): string {
  return process.env.npm_lifecycle_event === 'start' || process.env.npm_lifecycle_event === 'interlock'
    ? 'npm run interlock --'
    : 'npx interlock';
}

export async function worker(argv: string[], io: Output): Promise<number> {
  const { values } = flags(argv, { config: { type: 'string' } });
  const { config } = await loadConfig(values.config as string | undefined, io.env);
  const svc = await startService({ config, http: false, worker: true, demoReviewers: false, log: (l) => io.out(l) });
  io.out(`worker ${svc.interlock.owner} running on ${svc.store.name}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await svc.close();
  return EXIT.ok;
}

export async function migrate(_argv: string[], io: Output): Promise<number> {
  const store = await openStore(io.env.DATABASE_URL);
  io.out(`migrated (${store.name})`);
  await store.close();
  return EXIT.ok;
}

export async function reviewers(argv: string[], io: Output): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = flags(rest, {
    name: { type: 'string' },
    roles: { type: 'string' },
    json: { type: 'boolean' },
  });
  const { interlock, store } = await engine(io);
  try {
    if (sub === 'add') {
      const roles = str(values.roles, 'roles')
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean);
      const { reviewer, token } = await createReviewer(interlock.reviewers, { name: str(values.name, 'name'), roles });
      await interlock.audit.record([
        auditEvent('reviewer_added', 'cli', { reviewerId: reviewer.id, name: reviewer.name, roles: reviewer.roles }),
      ]);
      io.out(`reviewer ${reviewer.id} (${reviewer.name}; roles ${reviewer.roles.join(', ')})`);
      io.out(`token: ${token}`);
      io.out('The token is shown once; only its hash is stored. Send it as "Authorization: Bearer <token>".');
      return EXIT.ok;
    }
    if (sub === 'list') {
      const all = await interlock.reviewers.listReviewers();
      if (values.json) io.json(all.map(({ tokenHash: _t, ...r }) => r));
      else
        io.out(
          table([
            ['id', 'name', 'roles', 'status', 'created'],
            ...all.map((r) => [r.id, r.name, r.roles.join(','), r.revoked ? 'revoked' : 'active', iso(r.createdAt)]),
          ]),
        );
      return EXIT.ok;
    }
    if (sub === 'revoke') {
      const id = positionals[0];
      if (!id) throw new UsageError('usage: interlock reviewers revoke <reviewer-id>');
      if (!(await interlock.reviewers.revokeReviewer(id))) {
        io.err(`no active reviewer ${id}; see interlock reviewers list`);
        return EXIT.refused;
      }
      await interlock.audit.record([auditEvent('reviewer_revoked', 'cli', { reviewerId: id })]);
      io.out(`revoked ${id}`);
      return EXIT.ok;
    }
    if (sub === 'link-slack') {
      const [id, slackUser] = positionals;
      if (!id || !slackUser || !/^[UW][A-Z0-9]{2,}$/.test(slackUser))
        throw new UsageError(
          'usage: interlock reviewers link-slack <reviewer-id> <slack-user-id>  (the Slack member id, e.g. U024BE7LH: profile → ⋯ → Copy member ID)',
        );
      const r = await interlock.reviewers.getReviewer(id);
      if (!r || r.revoked) {
        io.err(`no active reviewer ${id}; see interlock reviewers list`);
        return EXIT.refused;
      }
      await interlock.reviewers.linkIdentity('slack', slackUser, id, interlock.now());
      await interlock.audit.record([
        auditEvent('reviewer_added', 'cli', { reviewerId: id, linked: { slack: slackUser } }),
      ]);
      io.out(`Slack user ${slackUser} decides as ${r.name} (${id}; roles ${r.roles.join(', ')})`);
      return EXIT.ok;
    }
    throw new UsageError(
      'usage: interlock reviewers add --name NAME --roles a,b | list | revoke ID | link-slack ID SLACK_USER_ID',
    );
  } finally {
    await store.close();
  }
}

/** Chain heads kept from an earlier `audit verify --json` (its output, or just its `heads` array). */
function readSavedHeads(path: string): ChainHead[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(
      `--against ${path}: cannot read it as JSON (${(err as Error).message}). Pass the output of an earlier \`interlock audit verify --json\`.`,
    );
  }
  const heads = Array.isArray(parsed) ? parsed : (parsed as { heads?: unknown } | null)?.heads;
  const ok = (h: unknown): h is ChainHead => {
    const x = h as ChainHead;
    return (
      !!x &&
      Number.isInteger(x.chain) &&
      x.chain >= 0 &&
      Number.isInteger(x.seq) &&
      x.seq >= 0 &&
      typeof x.hash === 'string' &&
      /^[0-9a-f]{64}$/.test(x.hash)
    );
  };
  if (!Array.isArray(heads) || !heads.every(ok)) {
    throw new UsageError(
      `--against ${path}: expected the output of \`interlock audit verify --json\` (with "heads": [{ "chain", "seq", "hash" }]).`,
    );
  }
  return heads;
}

/** `audit verify`'s lines for events whose time runs backwards along their chain (none when there are none). */
function timeFindingLines(findings: AuditFindings | undefined): string[] {
  if (!findings) return [];
  const lines = [
    `note: ${findings.total} event(s) carry a time earlier than the event before them in their chain — a clock stepped back or processes whose clocks disagree (the chain itself is intact; check NTP on the hosts that write):`,
    ...findings.first.map(
      (f) =>
        `  #${f.seq} (${f.id}${f.chain === null ? '' : `, chain ${f.chain}`}): ${iso(f.at)} is ${(f.backMs / 1000).toFixed(1)} s before #${f.previousSeq} at ${iso(f.previousAt)}`,
    ),
  ];
  if (findings.total > findings.first.length) lines.push(`  … and ${findings.total - findings.first.length} more`);
  return lines;
}

export async function audit(argv: string[], io: Output): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = flags(rest, {
    thread: { type: 'string' },
    request: { type: 'string' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean' },
    against: { type: 'string' },
  });
  const against = sub === 'verify' && typeof values.against === 'string' ? readSavedHeads(values.against) : [];
  const { interlock, store } = await engine(io);
  try {
    if (sub === 'verify') {
      let last = 0;
      const r = await interlock.verifyAudit({
        against,
        onProgress: (checked, head) => {
          if (!values.quiet && checked - last >= 5000) {
            last = checked;
            io.err(`verified ${checked}/${head} events…`);
          }
        },
      });
      if (values.json) io.json(r, true);
      else {
        if (r.ok)
          io.out(`ok: ${r.events} events up to #${r.headSeq}; chain heads fingerprint ${r.headHash.slice(0, 16)}…`);
        else
          io.out(
            `BROKEN at event #${r.brokenAt.seq}${r.brokenAt.id ? ` (${r.brokenAt.id})` : ''}: ${r.brokenAt.problem}`,
          );
        for (const line of timeFindingLines(r.findings)) io.out(line);
      }
      // Time running backwards is a finding about clocks, not tampering: it does not change the exit code.
      return r.ok ? EXIT.ok : EXIT.failed;
    }
    if (sub === 'show') {
      if (!values.thread && !values.request)
        throw new UsageError('usage: interlock audit show --thread ID | --request ID');
      const events = await store.listAudit({
        ...(values.thread ? { threadId: values.thread as string } : {}),
        ...(values.request ? { requestId: values.request as string } : {}),
      });
      if (values.json) io.json(events);
      else {
        // Names, not ids: reviewers by name, processes as "system (host, pid)". --json keeps the recorded actor.
        const name = await actorNames(store);
        io.out(
          table([
            ['seq', 'time', 'type', 'actor', 'request', 'payload'],
            ...events.map((e) => [
              String(e.seq),
              iso(e.at),
              e.type,
              name(e.actor),
              e.requestId ?? '-',
              JSON.stringify(e.payload).slice(0, 100),
            ]),
          ]),
        );
      }
      return EXIT.ok;
    }
    throw new UsageError(
      'usage: interlock audit verify [--json] [--against SAVED.json] | show --thread ID | --request ID',
    );
  } finally {
    await store.close();
  }
}
