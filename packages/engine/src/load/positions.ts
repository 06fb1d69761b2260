/**
 * Where each node of a document was written, kept once `yaml`'s nodes are dropped: the nodes
 * take many times the size of the document's text, their offsets a small part of that. `placeOf` takes them from a composed document's nodes;
 * `offsetAt` answers for a path of its value what walking those nodes would have answered.
 */
import { isMap, isScalar, isSeq, type Node, type Scalar } from 'yaml';

/** A path in a document's value: map keys and list indexes. */
export type Path = readonly (string | number)[];

/** Where a node was written: its offset in the file's text, and for a collection its items'. */
export type Place = number | CollectionPlace;

interface CollectionPlace {
  /** The offset of the collection's first character. */
  at: number;
  /** Each item's place: a sequence's items, a mapping's values (in the order of `keys`). */
  items: Place[];
  /** A mapping's keys as text (keys that are not scalars left out); absent for a sequence. */
  keys?: string[];
  /** Where each of `keys` was written. */
  keyAt?: number[];
}

/**
 * The place of `node` and everything in it. An empty value (`key:` and nothing) is placed where
 * `yaml` puts its empty scalar; a node without a range (none that `yaml` composes) at `fallback`.
 * Recursive: `parseWithinNesting` has already refused collections nested deeper than 64.
 */
export function placeOf(node: unknown, fallback = 0): Place {
  const at = (node as Node | null)?.range?.[0] ?? fallback;
  if (isSeq(node)) return { at, items: node.items.map((item) => placeOf(item, at)) };
  if (!isMap(node)) return at;
  // Built with `map`, which allocates each array at its length (`push` leaves room to grow).
  const pairs = node.items.filter((pair) => isScalar(pair.key));
  const keyAt = pairs.map((pair) => (pair.key as Node).range?.[0] ?? at);
  return {
    at,
    keys: pairs.map((pair) => String((pair.key as Scalar).value)),
    keyAt,
    items: pairs.map((pair, i) => placeOf(pair.value, keyAt[i])),
  };
}

/**
 * The offset of the node at `path`; the nearest existing ancestor's when the path does not exist
 * (a missing field, an index past the end, a path into a scalar). With `key`, the offset of the
 * last segment's key, when it is a mapping's.
 */
export function offsetAt(root: Place, path: Path, key = false): number {
  let place = root;
  for (const [i, segment] of path.entries()) {
    if (typeof place === 'number') break;
    let index = -1;
    if (place.keys) {
      index = place.keys.indexOf(String(segment));
      if (index >= 0 && key && i === path.length - 1) return place.keyAt![index]!;
    } else if (typeof segment === 'number') {
      index = segment;
    }
    const item = place.items[index];
    if (item === undefined) break;
    place = item;
  }
  return typeof place === 'number' ? place : place.at;
}
