import { userInfo } from 'node:os';
import { redactMessages } from '../core/index.ts';
import { auditEvent, type ThreadRunner } from '../engine/index.ts';
import { EXIT, UsageError, iso, type Output } from './output.ts';
import { engine, flags, str, type CliEngine, type Flags } from './shared.ts';

type PrintedMessage = {
  role: string;
  content: Array<{ type: string; text?: string; toolName?: string; input?: unknown; output?: { value: unknown } }>;
};

/** Who ran the CLI, for the audit of a raw read (the CLI has the database, not a reviewer token). */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

const agentsByName = (built: ThreadRunner[] | undefined) => new Map((built ?? []).map((a) => [a.name, a]));

/** `threads abort ID`: ask the thread's agent to stop it. */
async function abortThread({ store, agents }: CliEngine, id: string | undefined, io: Output): Promise<number> {
  if (!id) throw new UsageError('usage: interlock threads abort <thread-id>');
  const t = await store.getThread(id);
  if (!t) {
    io.err(`no thread ${id}`);
    return EXIT.refused;
  }
  await agentsByName(agents).get(t.agent)?.abort(id, 'cli');
  io.out(`abort requested for ${id}`);
  return EXIT.ok;
}

/** `threads start --agent NAME --input TEXT`: run an agent until it finishes or waits for a person. */
async function startThread({ agents: built }: CliEngine, values: Flags, io: Output): Promise<number> {
  const agents = agentsByName(built);
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

/** `threads show ID`: a thread's messages, personal data masked unless `--raw` (audited), and what it waits for. */
async function showThread(
  { interlock, store }: CliEngine,
  id: string | undefined,
  values: Flags,
  io: Output,
): Promise<number> {
  if (!id) throw new UsageError('usage: interlock threads show <thread-id> [--json] [--raw]');
  const t = await store.getThread(id);
  if (!t) {
    io.err(`no thread ${id}`);
    return EXIT.refused;
  }
  const stored = (await store.listMessages(id)) as PrintedMessage[];
  // Personal data is masked as on the review card; --raw shows the stored text, and the audit log says who read it.
  let messages = redactMessages(stored);
  if (values.raw) {
    await interlock.audit.record([
      auditEvent('raw_viewed', cliActor(), { surface: 'cli', what: 'thread messages' }, { threadId: id }),
    ]);
    messages = stored;
  }
  const pending = await store.listRequests({ threadId: id, status: 'pending' });
  if (values.json) {
    io.json({ thread: t, messages, pending: pending.items });
    return EXIT.ok;
  }
  io.out(
    `${t.id}  ${t.status}  agent ${t.agent}@${t.agentVersion}  updated ${iso(t.updatedAt)}${values.raw ? '' : '  (personal data masked; --raw shows it, audited)'}`,
  );
  for (const m of messages) {
    for (const p of m.content) {
      if (p.type === 'text') io.out(`${m.role}: ${p.text}`);
      else if (p.type === 'tool-call') io.out(`${m.role}: -> ${p.toolName}(${JSON.stringify(p.input)})`);
      else if (p.type === 'tool-result') io.out(`tool: <- ${p.toolName}: ${JSON.stringify(p.output?.value)}`);
    }
  }
  for (const r of pending.items) io.out(`waiting: ${r.id} ${r.tool} (${r.tier}, ${r.role}) until ${iso(r.expiresAt)}`);
  return EXIT.ok;
}

/** `interlock threads start|show|abort`. */
export async function threads(argv: string[], io: Output): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = flags(rest, {
    agent: { type: 'string' },
    input: { type: 'string' },
    thread: { type: 'string' },
    json: { type: 'boolean' },
    raw: { type: 'boolean' },
    config: { type: 'string' },
  });
  const withAgents = sub === 'start' || sub === 'abort';
  const cli = await engine(io, withAgents ? ((values.config as string | undefined) ?? true) : undefined);
  try {
    if (sub === 'abort') return await abortThread(cli, positionals[0], io);
    if (sub === 'start') return await startThread(cli, values, io);
    if (sub === 'show') return await showThread(cli, positionals[0], values, io);
    throw new UsageError('usage: interlock threads start --agent NAME --input TEXT | show ID [--raw] | abort ID');
  } finally {
    await cli.store.close();
  }
}
