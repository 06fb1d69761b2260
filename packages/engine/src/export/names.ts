/**
 * Manifest names for exported objects: deterministic (the same live state always gives the
 * same names) and unique per kind. An object this stack owns keeps the name its marker records
 * (the name its manifest had). Others are named from their natural key (a bot user's name, an
 * IP restriction's type), their marker name in another stack, their description, or their
 * first hostport, and fall back to their id; a name already taken gets the id appended.
 */
import type { Spec } from '../kinds/types.js';
import type { LiveObject } from '../live.js';

/** The schema's rule for a manifest name: 1..200 characters, no whitespace, no slash. */
export const VALID_NAME = /^[^\s/]{1,200}$/;

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');

/** The name an object would like, before uniqueness. */
function preferred(o: LiveObject, normal: Spec, stack: string, recorded: string | undefined): string {
  if (o.marker?.stack === stack) return o.marker.name;
  if (recorded !== undefined) return recorded;
  // A bot user's API name when it can be a manifest name, else its slug (spec.name keeps the name).
  if (o.descriptor.kind === 'BotUser') return VALID_NAME.test(String(normal.name)) ? String(normal.name) : slug(String(normal.name)) || o.id;
  if (o.marker && VALID_NAME.test(o.marker.name)) return o.marker.name;
  if (o.descriptor.kind === 'IPRestriction') return String(normal.type);
  if (typeof normal.description === 'string' && slug(normal.description) !== '') return slug(normal.description);
  const hostport = (normal.hostports as string[] | undefined)?.[0];
  if (hostport) return slug(hostport.replace(/:\d+$/, ''));
  return o.id;
}

/**
 * Names for `objects` (top-level, one kind or several): owned objects first, so their recorded
 * names win; then the others in id order. `recordedName` gives the manifest name the stack's
 * bot user registry records for a bot user (bot-registry/registry.ts), which counts as owned.
 */
export function nameObjects(
  objects: readonly { live: LiveObject; normal: Spec }[],
  stack: string,
  recordedName: (o: LiveObject) => string | undefined = () => undefined,
): Map<LiveObject, string> {
  const names = new Map<LiveObject, string>();
  const taken = new Set<string>();
  const owned = (o: LiveObject) => (o.marker?.stack === stack || recordedName(o) !== undefined ? 0 : 1);
  const ordered = [...objects].sort((a, b) => owned(a.live) - owned(b.live) || a.live.id.localeCompare(b.live.id));
  for (const { live, normal } of ordered) {
    const kind = live.descriptor.kind;
    const want = preferred(live, normal, stack, recordedName(live));
    const candidates = [want, `${want}-${live.id}`, live.id].filter((n) => VALID_NAME.test(n));
    const name = candidates.find((n) => !taken.has(`${kind}/${n}`)) ?? live.id;
    taken.add(`${kind}/${name}`);
    names.set(live, name);
  }
  return names;
}
