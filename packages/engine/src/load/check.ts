/**
 * Step 2 continued, after resolve: the rules the service would enforce, caught before any
 * request. Per object, the descriptor's `check` (CIDRs, hostports, module rules); across
 * objects, siblings sharing a natural key (a CIDR twice in a policy, a route match twice in an
 * edge), unique keys claimed twice (a hostport on two edges, two restrictions of one type),
 * reference cycles, and metadata that leaves no room for the ownership marker.
 */
import type { DesiredObject } from '../desired.js';
import { LOCK_BOT_PREFIX } from '../lock/record.js';
import { metadataRoom } from '../identity/marker.js';
import { secretVersionOf } from '../plan/write-only-secrets.js';
import { envRecord, valueAt } from '../identity/env-fields.js';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';
import { collect } from '../identity/patterns.js';

export function check(desired: DesiredObject[], stack: string): Problem[] {
  const problems: Problem[] = [];
  const at = (object: DesiredObject) => (path: readonly (string | number)[], options?: { key?: boolean }) =>
    object.doc.locate([...object.specPath, ...path], options);

  for (let i = 0; i < desired.length; i++) {
    const object = desired[i]!;
    if (object.descriptor.check) {
      const manifest = valueAt(object.doc.value, object.specPath) as Record<string, unknown> | undefined;
      problems.push(...object.descriptor.check(object.normal, manifest ? { at: at(object), manifest } : { at: at(object) }));
    }
    // The lock's bot users (lock/record.ts) are gatehouse's own: never declared, planned or deleted.
    if (object.descriptor.kind === 'BotUser' && String(object.normal.name).startsWith(LOCK_BOT_PREFIX)) {
      problems.push(
        problem(
          'invalid_value',
          `bot user names starting with "${LOCK_BOT_PREFIX}" are reserved for the lock of a stack (gatehouse unlock); choose another name`,
          object.source,
        ),
      );
    }
    const metadata = object.normal.metadata;
    // Without user metadata only a marker that cannot fit matters: possible only for a name and
    // path thousands of bytes long (each character is at most 6 bytes of JSON), so most skip it.
    if (object.descriptor.metadata && (typeof metadata === 'string' || (metadata === undefined && markerMayNotFit(object, stack)))) {
      // The marker records the manifest's path too (prune scope): a long path takes room.
      const room = metadataRoom(stack, object.markerName, object.manifestPath, secretVersionOf(object), envRecord(object, object.normal));
      const bytes = typeof metadata === 'string' ? Buffer.byteLength(metadata, 'utf8') : 0;
      if (room < 0) {
        problems.push(
          problem(
            'metadata_too_long',
            `gatehouse's ownership marker for stack "${stack}" with this manifest's path (${object.manifestPath?.length ?? 0} characters) would not fit in the 4096 bytes of metadata; move the manifest to a shorter path`,
            object.source,
          ),
        );
      } else if (bytes > room) {
        problems.push(
          problem(
            'metadata_too_long',
            `metadata is ${bytes} bytes; with gatehouse's ownership marker for stack "${stack}" it may be at most ${room} bytes (4096 in all); shorten it`,
            at(object)(['metadata']),
          ),
        );
      }
    }
  }

  // Siblings with one natural key, and unique keys claimed twice. Per parent, so that no key
  // string is built per child (a manifest may hold a hundred thousand rules).
  const siblings = new Map<string, Map<string, DesiredObject>>();
  const claims = new Map<string, DesiredObject>();
  for (let i = 0; i < desired.length; i++) {
    const object = desired[i]!;
    const { descriptor } = object;
    if (descriptor.child && object.parent) {
      const key = descriptor.naturalKey!(object.normal);
      let ofParent = siblings.get(object.parent);
      if (!ofParent) siblings.set(object.parent, (ofParent = new Map()));
      const first = ofParent.get(key);
      if (first) {
        problems.push(
          problem(
            descriptor.child.duplicate,
            `${object.name} is declared twice in ${object.parent} (first at line ${first.source.line}); its match must be unique there, remove or change one`,
            object.source,
          ),
        );
      } else ofParent.set(key, object);
    }
    const claimed = descriptor.uniqueKeys?.(object.normal);
    if (claimed)
      for (const claim of claimed) {
        const key = claim.key; // hostports are shared by HTTPS and TCP edges
        const first = claims.get(key);
        if (first) {
          problems.push(
            problem(
              claim.code,
              `${claim.key} is already claimed by ${first.address} (${first.source.file}:${first.source.line}); it may belong to one ${descriptor.title} only`,
              at(object)(claim.path),
            ),
          );
        } else claims.set(key, object);
      }
  }

  problems.push(...cycles(desired));
  return problems;
}

/** Whether the ownership marker could exceed the metadata limit (see `check`): a bound, no string built. */
const markerMayNotFit = (object: DesiredObject, stack: string) =>
  (object.markerName.length + (object.manifestPath?.length ?? 0) + stack.length) * 6 + 200 > 4096;

/**
 * Reference cycles among desired objects (a failover backend that reaches itself), each
 * reported at the reference that closes it.
 */
function cycles(desired: DesiredObject[]): Problem[] {
  // An object that references nothing but its parent is in no cycle: only the others are walked
  // (and indexed: most objects, every IP policy rule, are not).
  const referencesOthers = (o: DesiredObject) => o.references.some((r) => r !== o.parent);
  const byAddress = new Map(desired.filter(referencesOthers).map((o) => [o.address, o]));
  const state = new Map<string, 'open' | 'done'>();
  const problems: Problem[] = [];
  const stack: string[] = [];
  const visit = (address: string) => {
    state.set(address, 'open');
    stack.push(address);
    const object = byAddress.get(address)!;
    for (const next of object.references.filter((r) => r !== object.parent && byAddress.has(r))) {
      if (state.get(next) === 'open') {
        const loop = [...stack.slice(stack.indexOf(next)), next];
        problems.push(
          problem('reference_cycle', `references form a cycle: ${loop.join(' -> ')}; break it by removing one of these references`, referenceAt(object, next)),
        );
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(address, 'done');
  };
  for (const object of byAddress.values()) {
    if (!state.has(object.address)) visit(object.address);
  }
  return problems;
}

/**
 * Where `object`'s manifest writes its reference to `address` (a name, or a weighted key):
 * the reference that closes a cycle. The object's own position when none is found.
 */
function referenceAt(object: DesiredObject, address: string): SourceLocation {
  const manifest = valueAt(object.doc.value, object.specPath);
  for (const ref of object.descriptor.refs) {
    const isKey = ref.pattern.at(-1) === '{}';
    const hit = collect(manifest, ref.pattern).find(({ value }) => typeof value === 'string' && `${ref.kind}/${value}` === address);
    if (hit) return object.doc.locate([...object.specPath, ...hit.path], { key: isKey });
  }
  return object.source;
}
