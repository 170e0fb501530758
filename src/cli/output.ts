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

/** A fixed-width table. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export function iso(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z');
}
