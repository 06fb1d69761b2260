/**
 * Identifiers: a kind prefix, an underscore and 26 random base62 characters (about 155 bits),
 * URL-safe as service-behaviour.md describes (`ipp_2b9X...`).
 *
 * Random bytes are drawn from a pool refilled 4 KiB at a time: one `randomBytes` call per
 * about 150 ids instead of one per id (every request gets an id, `op_...`, so this is on the
 * path of every GET). Each character comes from one byte by rejection sampling (bytes of 248
 * and more are skipped), so the 62 characters are equally likely.
 */
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 26;
/** The largest multiple of 62 that fits a byte: bytes at or above it would bias the draw. */
const UNBIASED_LIMIT = 248;
const POOL_SIZE = 4096;

const pool = Buffer.allocUnsafe(POOL_SIZE);
let next = POOL_SIZE;

/** One random byte below `UNBIASED_LIMIT`, from the pool. */
function unbiasedByte(): number {
  for (;;) {
    if (next === POOL_SIZE) {
      randomFillSync(pool);
      next = 0;
    }
    const byte = pool[next++]!;
    if (byte < UNBIASED_LIMIT) return byte;
  }
}

export function newId(prefix: string): string {
  let out = `${prefix}_`;
  for (let i = 0; i < RANDOM_LENGTH; i++) out += ALPHABET[unbiasedByte() % ALPHABET.length];
  return out;
}
