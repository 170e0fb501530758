import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI's entry point, run as a child process the way users run it. */
export const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Fixture deployment: every refund needs a supervisor; the tool has a schema, so edits can be checked. */
export const PAYMENTS_CONFIG = fileURLToPath(new URL('../../src/testing/fixtures/payments.config.ts', import.meta.url));

/** What a CLI run printed and returned. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Run `interlock ARGS` in a child process with `env` added to this process's environment. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  node = process.execPath,
  script = CLI,
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(node, [script, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 99) : 0;
      resolve({ code, out: stdout, err: stderr });
    });
  });
}

/**
 * Run `interlock ARGS | head -c 200` through a shell, as a person pipes output
 * into a reader that stops early: the CLI's later writes fail with EPIPE and it
 * must stop quietly (no stack trace). `code` is the CLI's own exit status.
 */
export function runCliIntoClosedPipe(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    const child = spawn('bash', ['-c', `${quoted} | head -c 200; exit \${PIPESTATUS[0]}`], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 99, out, err }));
  });
}
