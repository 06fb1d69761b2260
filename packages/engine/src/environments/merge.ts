/**
 * An overlay's merge: RFC 7386 (JSON Merge Patch) semantics, with one addition for the lists
 * of inline children. Per RFC 7386, a map merges key by key, `null` removes a key, and any
 * other value (a list included) replaces what was there. The lists of a parent's inline
 * children (an edge's `routes`, a policy's `rules`) instead merge item by item on their natural
 * key (a route's `match`, a rule's `cidr`, declared once in each child's kind descriptor): an
 * item whose key is in the base merges into that item, `delete: true` beside the key removes
 * it, and an item with a new key is appended.
 *
 * Every result comes with its `Origin`, so that positions point at the overlay for what the
 * overlay wrote and at the base for the rest.
 */
import { isMap } from '../identity/patterns.js';
import { problem, type Problem } from '../problems.js';
import { childOrigin, type Origin } from './origin.js';

/** `spec` fields whose lists merge by a key: field -> key field. */
export type KeyedLists = ReadonlyMap<string, string>;

/** defineProperty: a key named __proto__ stays a plain key. */
const set = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

export interface Merged {
  value: unknown;
  origin: Origin;
}

/**
 * Merges `patch` (written at `patchOrigin`) into `base` (at `baseOrigin`). `keyed` applies at
 * `spec.<field>` of the document; `path` is the position of `base` in its document.
 */
export function mergeValue(
  base: unknown,
  baseOrigin: Origin,
  patch: unknown,
  patchOrigin: Origin,
  keyed: KeyedLists,
  problems: Problem[],
  path: readonly (string | number)[] = [],
): Merged {
  if (!isMap(patch)) return { value: patch, origin: patchOrigin };
  const target: Record<string, unknown> = isMap(base) ? { ...base } : {};
  const children = new Map<string, Origin>();
  if (isMap(base)) for (const key of Object.keys(base)) children.set(key, childOrigin(baseOrigin, key));
  let touched: Origin | undefined;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete target[key];
      children.delete(key);
      // A problem about this map now (a required field missing) is about the overlay's null.
      touched = childOrigin(patchOrigin, key);
      continue;
    }
    const keyField = path.length === 1 && path[0] === 'spec' ? keyed.get(key) : undefined;
    const merged =
      keyField && Array.isArray(value)
        ? mergeKeyedList(target[key], children.get(key), value, childOrigin(patchOrigin, key), keyField, problems)
        : mergeValue(target[key], children.get(key) ?? childOrigin(patchOrigin, key), value, childOrigin(patchOrigin, key), keyed, problems, [...path, key]);
    set(target, key, merged.value);
    children.set(key, merged.origin);
  }
  // A map the overlay created entirely is located in the overlay; a merged one in the base.
  const own = isMap(base) ? baseOrigin : patchOrigin;
  return { value: target, origin: { source: own.source, path: own.path, children, ...(touched ? { touched } : {}) } };
}

const keyOf = (item: unknown, field: string) => (isMap(item) && typeof item[field] === 'string' ? (item[field] as string).trim().toLowerCase() : undefined);

/** A list of inline children merged item by item on `field`; see the module comment. */
function mergeKeyedList(base: unknown, baseOrigin: Origin | undefined, patch: unknown[], patchOrigin: Origin, field: string, problems: Problem[]): Merged {
  if (!Array.isArray(base) || !baseOrigin) return { value: patch, origin: patchOrigin };
  const items: unknown[] = [...base];
  const origins: (Origin | undefined)[] = base.map((_item, i) => childOrigin(baseOrigin, i));
  const listOrigin = baseOrigin;
  patch.forEach((item, i) => {
    const itemOrigin = childOrigin(patchOrigin, i);
    const key = keyOf(item, field);
    if (key === undefined) {
      problems.push(problem('overlay_invalid', `an item of this list must have its ${field} (the key it merges by)`, itemOrigin.source(itemOrigin.path)));
      return;
    }
    const at = items.findIndex((existing) => keyOf(existing, field) === key);
    const remove = isMap(item) && item.delete === true;
    if (remove) {
      if (at < 0) {
        problems.push(
          problem(
            'overlay_target_missing',
            `no item with ${field} ${JSON.stringify(item[field])} to delete in the base manifest`,
            itemOrigin.source([...itemOrigin.path, 'delete']),
          ),
        );
        return;
      }
      items.splice(at, 1);
      origins.splice(at, 1);
      return;
    }
    if (at < 0) {
      items.push(item);
      origins.push(itemOrigin);
      return;
    }
    const merged = mergeValue(items[at], origins[at]!, item, itemOrigin, new Map(), problems, ['item']);
    items[at] = merged.value;
    origins[at] = merged.origin;
  });
  const children = new Map<string, Origin>(origins.map((o, i) => [String(i), o!]));
  return { value: items, origin: { source: listOrigin.source, path: listOrigin.path, children } };
}
