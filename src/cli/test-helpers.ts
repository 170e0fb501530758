import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI's entry point, run as a child process the way users run it. */
export const CLI = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Fixture deployment: every refund needs a supervisor; the tool has a schema, so edits can be checked. */
export const PAYMENTS_CONFIG = fileURLToPath(new URL('../testing/fixtures/payments.config.ts', import.meta.url));

/** What a CLI run printed and returned. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Run `interlock ARGS` in a child process with `env` added to this process's environment. */
export function runCli(args: string[], env: Record<string, string>, node = process.execPath, script = CLI): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(node, [script, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 99) : 0;
      resolve({ code, out: stdout, err: stderr });
    });
  });
}

/**
 * Run `interlock ARGS` with a stdout whose reader goes away after the first
 * chunk, as `interlock … | head -1` does: the CLI must stop quietly (no stack trace).
 */
export function runCliIntoClosedPipe(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.once('data', (chunk: Buffer) => {
      out += chunk.toString();
      child.stdout.destroy(); // the reader hangs up: further writes of the child fail with EPIPE
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 99, out, err }));
  });
}
