import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { readFileSync } from 'node:fs';
import { createInterlock, type Interlock } from '../engine/index.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';
import { createReviewer, hashToken } from '../server/index.ts';
import { toMs, type ChainHead, type Decision, type DecisionType, type Duration, type PolicyConfig } from '../core/index.ts';
import { loadConfig, startService, type InterlockConfig } from '../service/index.ts';
import { EXIT, UsageError, iso, table, type Output } from './output.ts';

type Flags = Record<string, string | boolean | undefined>;

function flags(argv: string[], options: ParseArgsOptionsConfig): { values: Flags; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: r.values as Flags, positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function str(v: Flags[string], name: string): string {
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** The engine over the configured database, with the config's policy (or an empty one for read-only commands). */
async function engine(io: Output, withConfig = false): Promise<{ interlock: Interlock; store: Store; config?: InterlockConfig }> {
  const store = await openStore(io.env.DATABASE_URL);
  let policy: PolicyConfig = { tools: {} };
  let config: InterlockConfig | undefined;
  if (withConfig) {
    config = (await loadConfig(undefined, io.env)).config;
    policy = config.policy;
  }
  return { interlock: createInterlock({ store, policy }), store, ...(config ? { config } : {}) };
}

export async function serve(argv: string[], io: Output, worker = true): Promise<number> {
  const { values } = flags(argv, { port: { type: 'string' }, 'seed-demo': { type: 'boolean' }, config: { type: 'string' }, 'no-worker': { type: 'boolean' }, host: { type: 'string' } });
  const { config, path } = await loadConfig(values.config as string | undefined, io.env);
  const port = Number(values.port ?? io.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${String(values.port ?? io.env.PORT)}"`);
  const svc = await startService({
    config,
    http: worker !== false ? true : false,
    worker: worker && !values['no-worker'],
    port,
    ...(values.host ? { hostname: values.host as string } : {}),
    seedDemo: values['seed-demo'] === true,
    log: (l) => io.out(l),
  });
  const backend = svc.store.name === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `embedded SQLite in ${io.env.INTERLOCK_DATA_DIR ?? './data'}`;
  io.out(`Interlock is running at ${svc.url}  (${backend})`);
  io.out(`config: ${path}${config.describe ? ` - ${config.describe()}` : ''}`);
  if (svc.demoTokens.length) {
    io.out('');
    io.out('Demo reviewers (tokens are shown once; only their hashes are stored):');
    io.out(table([['name', 'roles', 'token'], ...svc.demoTokens.map((t) => [t.name, t.roles.join(','), t.token])]));
    io.out(`Sign in at ${svc.url} with a token. Start conversations: npm start -- --seed-demo`);
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

export async function worker(argv: string[], io: Output): Promise<number> {
  const { values } = flags(argv, { config: { type: 'string' } });
  const { config } = await loadConfig(values.config as string | undefined, io.env);
  const svc = await startService({ config, http: false, worker: true, demoReviewers: false, log: (l) => io.out(l) });
  io.out(`worker ${svc.interlock.context.owner} running on ${svc.store.name}`);
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
  const { values, positionals } = flags(rest, { name: { type: 'string' }, roles: { type: 'string' }, json: { type: 'boolean' } });
  const store = await openStore(io.env.DATABASE_URL);
  try {
    if (sub === 'add') {
      const roles = str(values.roles, 'roles').split(',').map((r) => r.trim()).filter(Boolean);
      const { reviewer, token } = await createReviewer(store, { name: str(values.name, 'name'), roles });
      await store.transaction((tx) => tx.appendAudit([{ type: 'reviewer_added', actor: 'cli', payload: { reviewerId: reviewer.id, name: reviewer.name, roles: reviewer.roles } }], Date.now()));
      io.out(`reviewer ${reviewer.id} (${reviewer.name}; roles ${reviewer.roles.join(', ')})`);
      io.out(`token: ${token}`);
      io.out('The token is shown once; only its hash is stored. Send it as "Authorization: Bearer <token>".');
      return EXIT.ok;
    }
    if (sub === 'list') {
      const all = await store.listReviewers();
      if (values.json) io.json(all.map(({ tokenHash: _t, ...r }) => r));
      else io.out(table([['id', 'name', 'roles', 'status', 'created'], ...all.map((r) => [r.id, r.name, r.roles.join(','), r.revoked ? 'revoked' : 'active', iso(r.createdAt)])]));
      return EXIT.ok;
    }
    if (sub === 'revoke') {
      const id = positionals[0];
      if (!id) throw new UsageError('usage: interlock reviewers revoke <reviewer-id>');
      if (!(await store.revokeReviewer(id))) {
        io.err(`no active reviewer ${id}; see interlock reviewers list`);
        return EXIT.refused;
      }
      await store.transaction((tx) => tx.appendAudit([{ type: 'reviewer_revoked', actor: 'cli', payload: { reviewerId: id } }], Date.now()));
      io.out(`revoked ${id}`);
      return EXIT.ok;
    }
    throw new UsageError('usage: interlock reviewers add --name NAME --roles a,b | list | revoke ID');
  } finally {
    await store.close();
  }
}

const DECISIONS: Record<string, DecisionType> = { approve: 'approve', reject: 'reject', respond: 'respond', edit: 'edit' };

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
    token: { type: 'string' },
  });
  const { interlock, store } = await engine(io, sub === 'decide');
  try {
    if (sub === 'list') {
      const { items } = await interlock.listRequests({
        status: ((values.status as string | undefined) ?? 'pending') as never,
        ...(values.role ? { roles: [values.role as string] } : {}),
        ...(values.tool ? { tool: values.tool as string } : {}),
        ...(values.thread ? { threadId: values.thread as string } : {}),
        order: 'expiry',
        limit: Number(values.limit ?? 50),
      });
      if (values.json) io.json(items);
      else io.out(table([['id', 'tool', 'tier', 'role', 'approvals', 'expires', 'reason'], ...items.map((r) => [r.id, r.tool, r.tier, r.role, `${r.approvalsReceived}/${r.approvalsRequired}`, iso(r.expiresAt), r.reason])]));
      return EXIT.ok;
    }
    if (sub === 'show') {
      const id = positionals[0];
      if (!id) throw new UsageError('usage: interlock approvals show <request-id>');
      const story = await interlock.explain(id);
      if (values.json) {
        io.json(story);
        return EXIT.ok;
      }
      const r = story.request;
      io.out(`${r.id}  ${r.status}  v${r.version}`);
      io.out(`tool:     ${r.tool}`);
      io.out(`args:     ${JSON.stringify(r.args)}`);
      io.out(`reason:   ${r.reason} (rule ${r.ruleId}, tier ${r.tier})`);
      io.out(`role:     ${r.role}, approvals ${r.approvalsReceived}/${r.approvalsRequired}`);
      io.out(`expires:  ${iso(r.expiresAt)} (then: ${r.onTimeout})`);
      io.out(`hash:     ${r.actionHash}`);
      io.out(`evidence (untrusted, redacted): ${JSON.stringify(r.evidence)}`);
      for (const d of story.decisions) io.out(`decision: ${d.type} by ${d.by} at ${iso(d.at)}`);
      for (const e of story.executions) io.out(`executed: ${e.status} (attempts ${e.attempts}, key ${e.key})`);
      return EXIT.ok;
    }
    if (sub === 'decide') {
      const id = positionals[0];
      const chosen = Object.keys(DECISIONS).filter((k) => values[k] === true);
      if (!id || chosen.length !== 1) throw new UsageError('usage: interlock approvals decide <request-id> --approve|--reject|--respond|--edit [--message TEXT] [--args JSON] [--trust] --token TOKEN (or INTERLOCK_TOKEN)');
      const token = (values.token as string | undefined) ?? io.env.INTERLOCK_TOKEN;
      if (!token) throw new UsageError('a reviewer token is needed: --token TOKEN or INTERLOCK_TOKEN');
      const reviewer = await store.getReviewerByTokenHash(hashToken(token));
      if (!reviewer || reviewer.revoked) {
        io.err(reviewer ? 'this token was revoked' : 'unknown token; create one with interlock reviewers add');
        return EXIT.refused;
      }
      const req = await interlock.getRequestOrThrow(id);
      let args: Record<string, unknown> | undefined;
      if (values.args !== undefined) {
        try {
          args = JSON.parse(values.args as string) as Record<string, unknown>;
        } catch {
          throw new UsageError('--args must be JSON, e.g. --args \'{"orderId":"ORD-1","amount":40}\'');
        }
      }
      const decision: Decision = {
        type: DECISIONS[chosen[0]!]!,
        expectedVersion: req.version,
        actionHash: req.actionHash,
        ...(args ? { args } : {}),
        ...(values.message !== undefined ? { message: values.message as string } : {}),
        ...(values.trust ? { trust: true } : {}),
      };
      const r = await interlock.decide(id, decision, reviewer);
      io.out(`${r.outcome}: ${id} is ${r.request.status}${r.newRequest ? `; new request ${r.newRequest.id} (${r.newRequest.tier}, ${r.newRequest.role})` : ''}`);
      return EXIT.ok;
    }
    throw new UsageError('usage: interlock approvals list|show ID|decide ID …');
  } finally {
    await store.close();
  }
}

export async function threads(argv: string[], io: Output): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = flags(rest, { agent: { type: 'string' }, input: { type: 'string' }, thread: { type: 'string' }, json: { type: 'boolean' } });
  const { interlock, store, config } = await engine(io, sub === 'start' || sub === 'abort');
  try {
    if (sub === 'start' || sub === 'abort') {
      const agents = new Map((await config!.agents({ interlock })).map((a) => [a.name, a]));
      if (sub === 'abort') {
        const id = positionals[0];
        if (!id) throw new UsageError('usage: interlock threads abort <thread-id>');
        const t = await store.getThread(id);
        if (!t) {
          io.err(`no thread ${id}`);
          return EXIT.refused;
        }
        await agents.get(t.agent)?.abort(id, 'cli');
        io.out(`abort requested for ${id}`);
        return EXIT.ok;
      }
      const name = (values.agent as string | undefined) ?? [...agents.keys()][0];
      const agent = name ? agents.get(name) : undefined;
      if (!agent) throw new UsageError(`--agent must be one of: ${[...agents.keys()].join(', ')}`);
      const r = await agent.invoke(str(values.input, 'input'), values.thread ? { threadId: values.thread as string } : {});
      if (values.json) io.json(r);
      else {
        io.out(`${r.threadId}: ${r.stopReason}`);
        if (r.text) io.out(`agent: ${r.text}`);
        for (const i of r.interrupts) io.out(`waiting: ${i.id} ${i.name} (${i.tier}, ${i.role}) - ${i.message}`);
      }
      return EXIT.ok;
    }
    if (sub === 'show') {
      const id = positionals[0];
      if (!id) throw new UsageError('usage: interlock threads show <thread-id>');
      const t = await store.getThread(id);
      if (!t) {
        io.err(`no thread ${id}`);
        return EXIT.refused;
      }
      const messages = await store.listMessages(id);
      const pending = await store.listRequests({ threadId: id, status: 'pending' });
      if (values.json) io.json({ thread: t, messages, pending: pending.items });
      else {
        io.out(`${t.id}  ${t.status}  agent ${t.agent}@${t.agentVersion}  updated ${iso(t.updatedAt)}`);
        for (const m of messages as Array<{ role: string; content: Array<{ type: string; text?: string; toolName?: string; input?: unknown; output?: { value: unknown } }> }>) {
          for (const p of m.content) {
            if (p.type === 'text') io.out(`${m.role}: ${p.text}`);
            else if (p.type === 'tool-call') io.out(`${m.role}: -> ${p.toolName}(${JSON.stringify(p.input)})`);
            else if (p.type === 'tool-result') io.out(`tool: <- ${p.toolName}: ${JSON.stringify(p.output?.value)}`);
          }
        }
        for (const r of pending.items) io.out(`waiting: ${r.id} ${r.tool} (${r.tier}, ${r.role}) until ${iso(r.expiresAt)}`);
      }
      return EXIT.ok;
    }
    throw new UsageError('usage: interlock threads start --agent NAME --input TEXT | show ID | abort ID');
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
    throw new UsageError(`--against ${path}: cannot read it as JSON (${(err as Error).message}). Pass the output of an earlier \`interlock audit verify --json\`.`);
  }
  const heads = Array.isArray(parsed) ? parsed : (parsed as { heads?: unknown } | null)?.heads;
  const ok = (h: unknown): h is ChainHead => {
    const x = h as ChainHead;
    return !!x && Number.isInteger(x.chain) && x.chain >= 0 && Number.isInteger(x.seq) && x.seq >= 0 && typeof x.hash === 'string' && /^[0-9a-f]{64}$/.test(x.hash);
  };
  if (!Array.isArray(heads) || !heads.every(ok)) {
    throw new UsageError(`--against ${path}: expected the output of \`interlock audit verify --json\` (with "heads": [{ "chain", "seq", "hash" }]).`);
  }
  return heads;
}

export async function audit(argv: string[], io: Output): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = flags(rest, { thread: { type: 'string' }, request: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, against: { type: 'string' } });
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
      else if (r.ok) io.out(`ok: ${r.events} events up to #${r.headSeq}; chain heads fingerprint ${r.headHash.slice(0, 16)}…`);
      else io.out(`BROKEN at event #${r.brokenAt.seq}${r.brokenAt.id ? ` (${r.brokenAt.id})` : ''}: ${r.brokenAt.problem}`);
      return r.ok ? EXIT.ok : EXIT.failed;
    }
    if (sub === 'show') {
      if (!values.thread && !values.request) throw new UsageError('usage: interlock audit show --thread ID | --request ID');
      const events = await store.listAudit({ ...(values.thread ? { threadId: values.thread as string } : {}), ...(values.request ? { requestId: values.request as string } : {}) });
      if (values.json) io.json(events);
      else io.out(table([['seq', 'time', 'type', 'actor', 'request', 'payload'], ...events.map((e) => [String(e.seq), iso(e.at), e.type, e.actor, e.requestId ?? '-', JSON.stringify(e.payload).slice(0, 100)])]));
      return EXIT.ok;
    }
    throw new UsageError('usage: interlock audit verify [--json] [--against SAVED.json] | show --thread ID | --request ID');
  } finally {
    await store.close();
  }
}

export async function metrics(argv: string[], io: Output): Promise<number> {
  const { values } = flags(argv, { window: { type: 'string' }, json: { type: 'boolean' } });
  let windowMs: number;
  try {
    windowMs = toMs(((values.window as string | undefined) ?? '24h') as Duration, '--window');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { interlock, store } = await engine(io);
  try {
    const r = await interlock.rollup(Date.now() - windowMs);
    if (values.json) {
      io.json(r);
      return EXIT.ok;
    }
    const pct = (x: number | null) => (x === null ? '-' : `${Math.round(x * 100)}%`);
    io.out(`window: ${iso(r.since)} .. ${iso(r.until)}`);
    io.out(
      table([
        ['tool', 'requests', 'pending', 'approved', 'edited', 'rejected', 'responded', 'expired', 'approval rate', 'correction rate', 'median min to decision'],
        ...r.tools.map((t) => [t.tool, String(t.requests), String(t.pending), String(t.approved), String(t.edited), String(t.rejected), String(t.responded), String(t.expired), pct(t.approvalRate), pct(t.correctionRate), t.medianMinutesToDecision === null ? '-' : t.medianMinutesToDecision.toFixed(1)]),
      ]),
    );
    io.out(`resume: ${r.resume.done} done, ${r.resume.dead} failed, ${r.resume.pending} pending; success ${pct(r.resume.successRate)}`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
