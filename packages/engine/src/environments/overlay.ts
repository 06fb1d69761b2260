/**
 * Overlays: the documents of an environment's overlay paths, applied to the base documents.
 * An overlay document names a base object by `kind` and `name`, and then:
 * - merges the rest of itself into it (see `merge.ts`: RFC 7386, routes by match, rules by
 *   cidr), and/or
 * - applies `patch:`, a list of RFC 6902 operations on the whole document (see `patch.ts`);
 * - or, with `delete: true` (and nothing else), removes it from this environment.
 * A document whose `kind`/`name` no base document declares is a new object of this
 * environment. Overlays apply in path order, so a later one can patch what an earlier added.
 *
 * The result keeps every position: a value the overlay wrote is located at the overlay's
 * line, the rest at the base's. Problems of the overlays themselves point at their lines.
 */
import { isMap } from '../identity/patterns.js';
import { childrenOf, KINDS } from '../kinds/index.js';
import { problem, type Problem } from '../problems.js';
import type { LoadedDocument } from '../load/documents.js';
import { mergeValue, type KeyedLists } from './merge.js';
import { childOrigin, cloneOrigin, locateIn, originOf, type Origin } from './origin.js';
import { applyPatch } from './patch.js';

/** Fields of an overlay document that say what it does, rather than what it merges. */
const CONTROL = new Set(['kind', 'name', 'patch', 'delete']);

/** Per manifest kind, the `spec` lists that merge by key (from the child kinds' descriptors). */
const KEYED = new Map<string, KeyedLists>(
  KINDS.filter((d) => d.manifestKind).map((d) => [d.manifestKind!, new Map(childrenOf(d.kind).map((c) => [c.child!.field, c.child!.key]))]),
);

interface Entry {
  doc: LoadedDocument;
  value: unknown;
  origin?: Origin;
  deleted?: boolean;
}

const keyOf = (value: unknown) =>
  isMap(value) && typeof value.kind === 'string' && typeof value.name === 'string' ? `${value.kind}/${value.name}` : undefined;

export function applyOverlays(base: LoadedDocument[], overlays: LoadedDocument[]): { documents: LoadedDocument[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const entries: Entry[] = base.map((doc) => ({ doc, value: doc.value }));
  const index = new Map<string, Entry>();
  for (const entry of entries) {
    const key = keyOf(entry.value);
    if (key && !index.has(key)) index.set(key, entry);
  }

  for (const overlay of overlays) {
    const value = overlay.value;
    const key = keyOf(value);
    if (!isMap(value) || !key) {
      problems.push(
        problem('overlay_invalid', 'an overlay document needs kind and name (of the base object it changes, or of a new object)', overlay.locate([])),
      );
      continue;
    }
    const target = index.get(key);
    if ('delete' in value) {
      if (value.delete !== true) {
        problems.push(
          problem('overlay_invalid', 'delete must be true (to remove the object from this environment), or be left out', overlay.locate(['delete'])),
        );
        continue;
      }
      const extra = Object.keys(value).filter((k) => !CONTROL.has(k) || k === 'patch');
      if (extra.length > 0) {
        problems.push(
          problem(
            'overlay_invalid',
            `an overlay with delete: true holds only kind, name and delete; remove ${extra.join(', ')}`,
            overlay.locate([extra[0]!], { key: true }),
          ),
        );
        continue;
      }
      if (!target) {
        problems.push(problem('overlay_target_missing', `nothing to delete: no base manifest declares ${key}`, overlay.locate(['delete'])));
        continue;
      }
      target.deleted = true;
      index.delete(key);
      continue;
    }
    if (!target) {
      if ('patch' in value) {
        problems.push(
          problem(
            'overlay_target_missing',
            `patch needs a base manifest to patch, and none declares ${key}; write the whole object instead`,
            overlay.locate(['patch'], { key: true }),
          ),
        );
        continue;
      }
      const entry = { doc: overlay, value };
      entries.push(entry);
      index.set(key, entry);
      continue;
    }
    const overlayOrigin = originOf(overlay.locate);
    let origin = target.origin ?? originOf(target.doc.locate);
    let merged = target.value;
    const mergePart = Object.fromEntries(Object.entries(value).filter(([k]) => !CONTROL.has(k)));
    if (Object.keys(mergePart).length > 0) {
      const result = mergeValue(merged, origin, mergePart, overlayOrigin, KEYED.get(String(value.kind)) ?? new Map(), problems);
      merged = result.value;
      origin = result.origin;
    }
    if ('patch' in value) {
      const patched = cloneOrigin(origin);
      const result = applyPatch(merged, patched, value.patch, childOrigin(overlayOrigin, 'patch'), problems);
      if (result.ok) {
        merged = result.value;
        origin = patched;
      }
    }
    target.value = merged;
    target.origin = origin;
  }

  const documents = entries
    .filter((entry) => !entry.deleted)
    .map((entry): LoadedDocument => {
      if (!entry.origin) return entry.doc;
      const origin = entry.origin;
      return { file: entry.doc.file, index: entry.doc.index, value: entry.value, locate: (path, options) => locateIn(origin, path, options) };
    });
  return { documents, problems };
}
