/**
 * Digests of write-only secrets, kept in the ownership marker (marker.ts) so that a plan can
 * tell whether the secret in the manifests is the one last sent, without the API ever returning
 * it. The marker is readable by anyone with an API key, so the digest must not give the secret
 * away: scrypt (node:crypto), salted per secret with 16 random bytes, slow on purpose (about
 * 16 MiB and tens of milliseconds a guess), 16 bytes kept. Written `<salt>.<key>`, both
 * base64url.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** scrypt's cost: N = 2^14, r = 8, p = 1 (Node's default, the parameters RFC 7914 names for interactive use). */
const COST = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 16;

/** The shape of a digest: salt and key, 22 base64url characters each. */
export const SECRET_DIGEST = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/;

const keyOf = (secret: string, salt: Buffer) => scryptSync(secret, salt, KEY_BYTES, COST);

/** Answers already computed in this process (a plan and the marker it compares ask for the same ones). */
const known = new Map<string, boolean>();

/** A new digest of `secret`, with a fresh salt. */
export function secretDigest(secret: string): string {
  const salt = randomBytes(16);
  return `${salt.toString('base64url')}.${keyOf(secret, salt).toString('base64url')}`;
}

/** Whether `digest` (as `secretDigest` writes it) is of `secret`. */
export function digestMatches(secret: string, digest: string): boolean {
  if (!SECRET_DIGEST.test(digest)) return false;
  const memo = `${digest}\0${secret}`;
  const cached = known.get(memo);
  if (cached !== undefined) return cached;
  const [salt, key] = digest.split('.') as [string, string];
  const matches = timingSafeEqual(keyOf(secret, Buffer.from(salt, 'base64url')), Buffer.from(key, 'base64url'));
  known.set(memo, matches);
  return matches;
}
