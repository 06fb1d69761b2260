/**
 * Identifiers: a kind prefix, an underscore and 26 random base62 characters (about 155 bits),
 * URL-safe as service-behaviour.md describes (`ipp_2b9X...`).
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 26;

export function newId(prefix: string): string {
  const bytes = randomBytes(RANDOM_LENGTH);
  let out = `${prefix}_`;
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}
