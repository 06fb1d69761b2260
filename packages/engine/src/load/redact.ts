/**
 * Secret values in free text: a problem that quotes a value (a hostport used twice, a reference
 * to no manifest, a pattern not matched), or an error the API answered for a request that
 * carried one. Whatever the message, every value of a secret `${env:}` variable in it is
 * replaced by `(sensitive: env NAME)` (env-policy.ts) before it is shown: the last line of
 * defence, after the masking of the fields themselves (identity/env-fields.ts).
 *
 * The API may quote a part of a value rather than all of it (the host of a `host:port`, a path
 * of a URL): the parts of a secret between `:`, `/`, `@`, `?`, `#`, `=`, `&`, `,`, `;` and
 * white space are replaced too, each of at least 8 characters.
 *
 * Values shorter than 4 characters are left alone: replacing every `us` or `443` would garble
 * every message, and a secret that short is not one.
 */
import type { Problem } from '../problems.js';
import { envLabel, type SecretUse } from './env-policy.js';

export type Redact = (text: string) => string;

const SHORTEST = 4;
const SHORTEST_PART = 8;
const SEPARATORS = /[\s:/@?#=&,;]+/;

/** `secret` and the parts of it an answer may quote alone. */
const quotable = (secret: string): string[] => [secret, ...secret.split(SEPARATORS).filter((part) => part.length >= SHORTEST_PART && part !== secret)];

/** Replaces the secret values of `uses` (and their JSON-escaped forms) in a text. */
export function secretRedactor(uses: readonly SecretUse[]): Redact {
  const labels = new Map<string, string>();
  for (const use of uses) {
    const label = envLabel(use.names);
    for (const secret of [use.value, ...use.raw].flatMap(quotable)) {
      if (secret.length < SHORTEST) continue;
      for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) if (!labels.has(form)) labels.set(form, label);
    }
  }
  if (labels.size === 0) return (text) => text;
  // Longest first: a value that holds another is replaced whole.
  const ordered = [...labels].sort((a, b) => b[0].length - a[0].length);
  return (text) => ordered.reduce((out, [secret, label]) => (out.includes(secret) ? out.split(secret).join(label) : out), text);
}

/** `problems` with every secret value of their messages replaced. */
export function redactProblems(problems: readonly Problem[], redact: Redact): Problem[] {
  return problems.map((p) => {
    const message = redact(p.message);
    return message === p.message ? p : { ...p, message };
  });
}
