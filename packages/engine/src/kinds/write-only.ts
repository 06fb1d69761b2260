/**
 * Write-only secrets: values the API accepts in requests but never returns (an event
 * destination's `aws_secret_access_key` reads back as null). gatehouse cannot compare what it
 * cannot read, so such a field is never a difference in the normal form, never drift, and is
 * written whenever the object is written (the descriptor's rule). What it sent is compared
 * instead through the ownership marker, which keeps a salted, slow digest of each one
 * (`keptSecrets`, plan/write-only-secrets.ts): a changed value is a change, and is sent.
 *
 * In every normal form, desired and live alike, the field holds the one `WRITE_ONLY` value.
 * Its JSON form is absent (`toJSON` returns undefined) and it is the same object on both
 * sides, so every generic step sees equal content: `canonicalJson` leaves it out (no changed
 * field, no drift, no hash change), masking shows `(sensitive)` on both sides (never "changed"),
 * and export, which finds a present secret field, writes an `${env:...}` placeholder there.
 *
 * The manifest's secret itself is kept beside the normal form, in a WeakMap keyed by the
 * object holding the field (`keepSecret`), where no serialization, log or plan can reach it;
 * only a descriptor's calls read it back (`secretOf`). A copy of that object has no secret,
 * and building a request from it fails loudly rather than sending none.
 */
class WriteOnlyField {
  /** Absent from every JSON form: plans, saved plans, hashes and logs never carry it. */
  toJSON(): undefined {
    return undefined;
  }

  toString(): string {
    return '(write-only)';
  }
}

/** The value of a write-only field in a normal form. */
export const WRITE_ONLY: object = Object.freeze(new WriteOnlyField());

const secrets = new WeakMap<object, Record<string, string>>();

/** `holder[field] = WRITE_ONLY`, with `value` (when a string) kept for the calls. */
export function keepSecret<T extends Record<string, unknown>>(holder: T, field: string, value: unknown): T {
  (holder as Record<string, unknown>)[field] = WRITE_ONLY;
  if (typeof value === 'string') secrets.set(holder, { ...secrets.get(holder), [field]: value });
  return holder;
}

/** The secret kept for `holder[field]`, for a request body; throws when there is none. */
export function secretOf(holder: object, field: string, what: string): string {
  const value = secrets.get(holder)?.[field];
  if (value === undefined) throw new Error(`${what} is write-only: the server never returns it, so it must come from the manifest`);
  return value;
}

/**
 * Every secret kept in `normal` (the normal form `fromManifest` made), with the dotted path of
 * its field (`target.kinesis.auth.creds.aws_secret_access_key`): what the ownership marker keeps
 * a digest of, so that a changed value is seen and sent (plan/write-only-secrets.ts).
 */
export function keptSecrets(normal: unknown): { path: string; value: string }[] {
  const found: { path: string; value: string }[] = [];
  const walk = (value: unknown, path: string[]): void => {
    if (value === null || typeof value !== 'object' || value === WRITE_ONLY) return;
    for (const [field, secret] of Object.entries(secrets.get(value) ?? {})) found.push({ path: [...path, field].join('.'), value: secret });
    for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(normal, []);
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * A copy of `holder` (`{...holder}`) that keeps the secrets kept for it: for the rare step that
 * must rebuild an object on the way to a field (an ignore rule's overlay, plan/ignore.ts) and
 * would otherwise leave the calls without the manifest's secret.
 */
export function copyWithSecrets<T extends Record<string, unknown>>(holder: T): T {
  const copy = { ...holder };
  const kept = secrets.get(holder);
  if (kept) secrets.set(copy, { ...kept });
  return copy;
}
