/**
 * "a" or "an" before a word as it is read aloud: "an IP policy", "an IPPolicy", "an HTTPS edge",
 * "an event destination", "a TCPEdge", "a backend", "a user". Messages name kinds and titles in
 * running text; the article follows the sound, not the letter.
 */

/** Letters whose name starts with a vowel sound, when an acronym is spelled out (F: "eff", H: "aitch"). */
const VOWEL_SOUNDING_LETTERS = new Set([...'AEFHILMNORSX']);

export function withArticle(word: string): string {
  return `${article(word)} ${word}`;
}

function article(word: string): 'a' | 'an' {
  // An acronym (two capitals first: IPPolicy, HTTPS edge, TCPEdge) is spelled letter by letter.
  if (/^[A-Z]{2}/.test(word)) return VOWEL_SOUNDING_LETTERS.has(word[0]!) ? 'an' : 'a';
  // "u" read "you" (user, unique, usage) takes "a"; other vowels "an".
  if (/^u(s[aeiu]|ni|ti)/i.test(word)) return 'a';
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
