/**
 * Identifiers: a kind prefix, an underscore and 26 base62 characters, URL-safe as
 * service-behaviour.md describes (`ipp_2b9X...`): 7 characters of the creation time in
 * milliseconds, then 19 random ones (about 113 bits, far beyond guessing). The time first, as
 * in the service's own identifiers (KSUIDs), so that later ids sort after earlier ones. Ids
 * stay opaque to clients.
 */
import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TIME_LENGTH = 7;
const RANDOM_LENGTH = 19;

export function newId(prefix: string): string {
  let time = '';
  for (let t = Date.now(), i = 0; i < TIME_LENGTH; i++, t = Math.floor(t / 62)) time = ALPHABET[t % 62]! + time;
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}_${time}${random}`;
}
