// Small filesystems of the test's own, for faults a test cannot cause on the machine's disk: an ext4
// image on a loop device that `fsfreeze` can stall, and a tmpfs of a few MB to fill. Both need root
// (mount, losetup); where they are refused the caller skips with the reason.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted scratch filesystem. */
export interface ScratchMount {
  dir: string;
  /** Stall every write to it (fsfreeze -f); it thaws by itself after `maxMs` even if the test dies. */
  freeze(maxMs: number): void;
  /** Thaw it (without forking: see `freeze`). */
  thaw(): Promise<void>;
  unmount(): Promise<void>;
}

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
}

/**
 * Mount an `sizeMb` ext4 image (freezable) or tmpfs (to fill) under a new temporary folder. Returns
 * the reason instead when this machine does not let the test mount one — outside CI only: with `CI`
 * set it throws, so the tests that need it fail rather than skip.
 */
export function mountScratch(kind: 'ext4' | 'tmpfs', sizeMb: number): ScratchMount | string {
  // Skipped only on a developer's machine without root; in CI (root) a mount that fails fails the test.
  const refuse = (why: string): string => {
    if (process.env.CI) throw new Error(`${why} (CI must run the stall and full-disk tests: run them as root)`);
    return why;
  };
  if (process.getuid?.() !== 0) return refuse('needs root to mount a scratch filesystem');
  const base = mkdtempSync(join(tmpdir(), `interlock-${kind}-`));
  const dir = join(base, 'mnt');
  const image = join(base, 'disk.img');
  try {
    execFileSync('mkdir', ['-p', dir]);
    if (kind === 'ext4') {
      run('truncate', ['-s', `${sizeMb}M`, image]);
      run('mkfs.ext4', ['-q', '-F', image]);
      run('mount', ['-o', 'loop', image, dir]);
    } else run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir]);
  } catch (err) {
    rmSync(base, { recursive: true, force: true });
    return refuse(
      `cannot mount a scratch ${kind}: ${((err as { stderr?: Buffer }).stderr?.toString() || (err as Error).message).trim()}`,
    );
  }
  let thawer: ChildProcess | undefined;
  const thaw = async (): Promise<void> => {
    const t = thawer;
    thawer = undefined;
    if (!t || t.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => t.once('exit', () => resolve()));
    t.ref();
    t.stdin?.end('\n');
    await exited;
  };
  return {
    dir,
    freeze(maxMs) {
      // The thawing process is started before the freeze and told to thaw through its stdin: once a thread
      // of this process is stuck in a page fault on the frozen filesystem (SQLite's mapped -shm file), this
      // process cannot fork until the thaw. It also thaws after `maxMs` by itself, should the test die.
      thawer = spawn('bash', ['-c', `read -t ${Math.ceil(maxMs / 1000)} _; fsfreeze -u "$0" 2>/dev/null`, dir], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      thawer.unref();
      run('fsfreeze', ['-f', dir]);
    },
    thaw,
    async unmount() {
      await thaw();
      try {
        run('umount', ['-l', dir]);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
  };
}
