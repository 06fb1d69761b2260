/**
 * Write-only secrets across plans: the API never returns them (kinds/write-only.ts), so what was
 * last sent is known only from the ownership marker, which keeps a salted scrypt digest of each
 * (`secrets`, identity/secret-digest.ts) and the manifest's `spec.secret_version`.
 *
 * - A secret whose digest the marker keeps is compared with it: changed, it is a change of its
 *   field (`(sensitive value changed)`), and the update sends it.
 * - A secret without a digest (applied before digests were kept, adopted, or left out of a
 *   marker with no room for it) cannot be compared: the plan lists it. Its next write (a marker
 *   refresh, which sends it) records the digest when there is room.
 * - A `secret_version` other than the one the marker records sends every secret again.
 */
import type { DesiredObject } from '../desired.js';
import { digestMatches, secretDigest } from '../identity/secret-digest.js';
import { keptSecrets } from '../kinds/write-only.js';
import type { LiveObject } from '../live.js';

/** The manifest's `spec.secret_version` (top-level objects only). */
export function secretVersionOf(d: DesiredObject): number | undefined {
  if (d.parent !== undefined) return undefined;
  const version = (d.doc.value as { spec?: { secret_version?: unknown } }).spec?.secret_version;
  return typeof version === 'number' ? version : undefined;
}

export interface SecretComparison {
  /** Dotted paths of the secrets whose value differs from the digest the marker keeps. */
  changed: string[];
  /** Dotted paths of the secrets the marker keeps no digest of. */
  notCompared: string[];
  /** The marker's version and the manifest's, when the manifest's is new. */
  resend?: { from: number | undefined; to: number };
}

const NOTHING: SecretComparison = { changed: [], notCompared: [] };

/** The write-only secrets of `d` against what the marker of `o` (owned by `stack`) says was sent. */
export function compareSecrets(d: DesiredObject, o: LiveObject, stack: string): SecretComparison {
  const secrets = keptSecrets(d.normal);
  const version = secretVersionOf(d);
  if (secrets.length === 0 && version === undefined) return NOTHING;
  // Only this stack's marker says what this stack sent.
  const marker = o.marker?.stack === stack ? o.marker : undefined;
  const changed: string[] = [];
  const notCompared: string[] = [];
  for (const { path, value } of secrets) {
    const digest = marker?.secrets?.[path];
    if (digest === undefined) notCompared.push(path);
    else if (!digestMatches(value, digest)) changed.push(path);
  }
  const resend = version !== undefined && version !== marker?.secretVersion ? { from: marker?.secretVersion, to: version } : undefined;
  return { changed, notCompared, ...(resend ? { resend } : {}) };
}

/**
 * The digests the marker of `d` records: the live marker's own where it is still of the value
 * (so an unchanged secret never rewrites the marker), a new one (fresh salt) where not.
 */
export function secretDigestsFor(d: DesiredObject, live: LiveObject | undefined, stack: string): Record<string, string> | undefined {
  const secrets = keptSecrets(d.normal);
  if (secrets.length === 0) return undefined;
  const recorded = live?.marker?.stack === stack ? live.marker.secrets : undefined;
  const digests: Record<string, string> = {};
  for (const { path, value } of secrets) {
    const kept = recorded?.[path];
    digests[path] = kept !== undefined && digestMatches(value, kept) ? kept : secretDigest(value);
  }
  return digests;
}
