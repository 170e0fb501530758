import { describeHidden, findHidden, findHiddenDeep, reveal } from '../core/reveal.ts';

/** How the CLI talks: lines to stdout, problems to stderr, stable exit codes. */
export const EXIT = {
  ok: 0,
  /** The command ran and found a problem (audit chain broken). */
  failed: 1,
  /** Wrong arguments. */
  usage: 2,
  /** Interlock refused (stale version, wrong role, not found…). */
  refused: 3,
  /** The database or another dependency failed. */
  system: 4,
} as const;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Writers, replaceable in tests. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
};

let pipeWatched = false;
/**
 * `interlock … | head -1`: once the reader has gone, writes fail with EPIPE. That
 * is the reader saying it has seen enough, not an error of the command: stop
 * quietly, as Unix tools do on SIGPIPE (Node ignores the signal, so it arrives
 * as an 'error' event that would otherwise print a stack trace).
 */
export function stopQuietlyOnClosedPipe(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
}

/** What commands write through: {@link forPeople}. */
export interface Output extends Io {
  /** Print `value` as JSON with its exact values (pretty unless `compact`); warn on stderr if it holds hidden characters. */
  json(value: unknown, compact?: boolean): void;
}

/**
 * Writers for people: every text line shows hidden characters (bidi controls,
 * zero-width, control characters) as `⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩` and the
 * first line with a new one adds a warning on stderr, so a terminal never shows
 * `MESSAGE` for the bytes `\u202eEGASSEM`. JSON keeps the exact values (it is
 * for programs, and the action hash binds them) with the warning on stderr.
 */
export function forPeople(io: Io): Output {
  const warned = new Set<number>();
  const warn = (chars: ReturnType<typeof findHidden>, what: string) => {
    const fresh = chars.filter((c) => !warned.has(c.codePoint));
    for (const c of fresh) warned.add(c.codePoint);
    if (fresh.length)
      io.err(
        `warning: ${what} hidden characters (${describeHidden(fresh)}): they are part of the values but invisible in plain text`,
      );
  };
  return {
    env: io.env,
    out(line) {
      warn(findHidden(line), 'this output shows as ⟨U+…⟩ the');
      io.out(reveal(line));
    },
    err: (line) => io.err(reveal(line)),
    json(value, compact = false) {
      io.out(compact ? JSON.stringify(value) : JSON.stringify(value, null, 2));
      warn(findHiddenDeep(value), 'this JSON keeps exactly the');
    },
  };
}

/** A fixed-width table; cells show hidden characters revealed (widths are those of what is printed). */
export function table(cells: string[][]): string {
  if (cells.length === 0) return '';
  const rows = cells.map((r) => r.map(reveal));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function iso(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A string value cut by {@link cutLongStrings}: where it is and how long it was. */
export interface CutValue {
  /** Where the value is, as `args.body` or `args.items[3]`. */
  path: string;
  /** Its length in characters. */
  length: number;
}

/**
 * `value` with every string longer than `max` characters cut to its first `max` (and "…"), and the
 * list of what was cut: a terminal is no place for a multi-megabyte argument, but the reader must
 * know a value was cut and how to get it whole.
 */
export function cutLongStrings(value: unknown, max: number, path = ''): { value: unknown; cuts: CutValue[] } {
  const cuts: CutValue[] = [];
  const visit = (v: unknown, at: string): unknown => {
    if (typeof v === 'string') {
      if (v.length <= max) return v;
      cuts.push({ path: at, length: v.length });
      return `${v.slice(0, max)}…`;
    }
    if (Array.isArray(v)) return v.map((x, i) => visit(x, `${at}[${i}]`));
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x, at ? `${at}.${k}` : k)]));
    return v;
  };
  return { value: visit(value, path), cuts };
}
