import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

// One crypto call per 4 KiB of randomness instead of one per id: ids are made on every pause and decision.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolAt = 0;
function randomByte(): number {
  if (poolAt >= POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}
let lastMs = 0;
let seq = 0;

/**
 * A new id: prefix, 10 chars of time, 4 of a per-millisecond counter, 8 random.
 * Ids sort by creation time within a process, which keyset pagination relies on.
 */
export function newId<T extends string>(prefix: string): T {
  const now = Date.now();
  if (now === lastMs) seq++;
  else {
    lastMs = now;
    seq = 0;
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  let counter = '';
  let c = seq;
  for (let i = 0; i < 4; i++) {
    counter = ALPHABET[c % 32]! + counter;
    c = Math.floor(c / 32);
  }
  let tail = '';
  for (let i = 0; i < 8; i++) tail += ALPHABET[randomByte() % 32];
  return `${prefix}_${time}${counter}${tail}` as T;
}
