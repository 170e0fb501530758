/** What the benchmark ran on, for the results header. */
import { cpus, totalmem, release, tmpdir } from 'node:os';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  kernel: string;
  node: string;
  sqlite: string;
  disk: string;
}

export function machine(): Machine {
  const c = cpus();
  let os = 'unknown';
  try {
    os = /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? os;
  } catch {
    // not Linux
  }
  const db = new DatabaseSync(':memory:');
  const sqlite = String((db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v);
  db.close();
  const mnt = spawnSync('findmnt', ['-no', 'SOURCE,FSTYPE', '-T', tmpdir()], { encoding: 'utf8' });
  return {
    cpu: c[0]?.model.trim() ?? 'unknown',
    cores: c.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os,
    kernel: release(),
    node: process.version,
    sqlite,
    disk: mnt.status === 0 ? mnt.stdout.trim().replace(/\s+/, ' ') : 'unknown',
  };
}
