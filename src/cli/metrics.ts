import { toMs, type Duration } from '../core/index.ts';
import type { Rollup } from '../engine/index.ts';
import { EXIT, UsageError, iso, table, type Output } from './output.ts';
import { engine, flags, type Flags } from './shared.ts';

const pct = (x: number | null) => (x === null ? '-' : `${Math.round(x * 100)}%`);
const min = (x: number | null) => (x === null ? '-' : x.toFixed(1));

const FIGURE_HEAD = [
  'calls',
  'interrupt rate',
  'requests',
  'pending',
  'approved',
  'edited',
  'rejected',
  'responded',
  'expired',
  'approval rate',
  'correction rate',
  'median min to decision',
];

const figureRow = (t: Rollup['tools'][number]) => [
  String(t.calls),
  pct(t.interruptRate),
  String(t.requests),
  String(t.pending),
  String(t.approved),
  String(t.edited),
  String(t.rejected),
  String(t.responded),
  String(t.expired),
  pct(t.approvalRate),
  pct(t.correctionRate),
  min(t.medianMinutesToDecision),
];

/** `--window` in ms and `--fast-seconds`, refused as usage errors when they do not parse. */
function readWindow(values: Flags): { windowMs: number; fastSeconds: number } {
  let windowMs: number;
  try {
    windowMs = toMs(((values.window as string | undefined) ?? '24h') as Duration, '--window');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const fastSeconds = Number((values['fast-seconds'] as string | undefined) ?? 10);
  if (!Number.isFinite(fastSeconds) || fastSeconds <= 0)
    throw new UsageError('--fast-seconds must be a positive number of seconds (default 10).');
  return { windowMs, fastSeconds };
}

/** The figures by tool, tier and agent, and how many threads finished without a person. */
function printFigures(r: Rollup, io: Output): void {
  io.out(`window: ${iso(r.since)} .. ${iso(r.until)}`);
  io.out(table([['tool', ...FIGURE_HEAD], ...r.tools.map((t) => [t.tool, ...figureRow(t)])]));
  io.out(table([['tier', ...FIGURE_HEAD], ...r.tiers.map((t) => [t.tier, ...figureRow({ ...t, tool: t.tier })])]));
  if (r.agents.length)
    io.out(
      table([
        ['agent', 'requests', 'pending'],
        ...r.agents.map((a) => [a.agent, String(a.requests), String(a.pending)]),
      ]),
    );
  io.out(
    `threads finished: ${r.threads.finished}, without a person: ${r.threads.autonomous} (autonomous completion ${pct(r.threads.autonomousRate)})`,
  );
}

/** Each role's queue growth over the window, then how resumes went. */
function printQueue(r: Rollup, io: Output): void {
  const roles = new Map<string, { opened: number; resolved: number }>();
  for (const f of r.queue.flows) {
    const x = roles.get(f.role) ?? { opened: 0, resolved: 0 };
    x.opened += f.opened;
    x.resolved += f.resolved;
    roles.set(f.role, x);
  }
  if (roles.size)
    io.out(
      table([
        ['role', 'opened', 'resolved', 'growth'],
        ...[...roles].map(([role, x]) => [role, String(x.opened), String(x.resolved), String(x.opened - x.resolved)]),
      ]),
    );
  io.out(
    `resume: ${r.resume.done} done, ${r.resume.dead} failed, ${r.resume.pending} pending; success ${pct(r.resume.successRate)}`,
  );
}

/** Planted checks caught, by reviewer, and reviewers' pace from opening a card to approving it. */
function printOversight(o: Rollup['oversight'], fastSeconds: number, io: Output): void {
  if (o && o.planted.placed > 0) {
    const p = o.planted;
    io.out(
      `planted checks: ${p.placed} placed, ${p.decided} decided, ${p.caught} caught (yield ${pct(p.yield)}); median min to decision: planted ${min(p.medianMinutesToDecision.planted)}, real ${min(p.medianMinutesToDecision.real)}`,
    );
    io.out(
      table([
        ['reviewer', 'planted seen', 'caught', 'missed', 'yield'],
        ...p.byReviewer.map((y) => [y.key, String(y.planted), String(y.caught), String(y.missed), pct(y.yield)]),
      ]),
    );
  }
  if (o && o.reviewers.length)
    io.out(
      table([
        ['reviewer', 'approvals', 'timed', 'median s open→approve', `approved < ${fastSeconds}s`],
        ...o.reviewers.map((x) => [
          x.reviewer,
          String(x.approvals),
          String(x.timed),
          x.medianSecondsToApprove === null ? '-' : x.medianSecondsToApprove.toFixed(1),
          pct(x.fastShare),
        ]),
      ]),
    );
}

/** `interlock metrics [--window 24h] [--fast-seconds N] [--json]`: the rollup of a window, oversight included. */
export async function metrics(argv: string[], io: Output): Promise<number> {
  const { values } = flags(argv, {
    window: { type: 'string' },
    json: { type: 'boolean' },
    'fast-seconds': { type: 'string' },
  });
  const { windowMs, fastSeconds } = readWindow(values);
  const { interlock, store } = await engine(io);
  try {
    // The command reads the database directly, as an operator: planted checks and reviewers' pace included.
    const r = await interlock.rollup(Date.now() - windowMs, undefined, { oversight: true, fastSeconds });
    if (values.json) {
      io.json(r);
      return EXIT.ok;
    }
    printFigures(r, io);
    printQueue(r, io);
    printOversight(r.oversight, fastSeconds, io);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
