/**
 * An overlay's `patch:` list: RFC 6902 (JSON Patch) operations on the whole document (paths
 * such as `/spec/routes/1/match`), applied in order with fast-json-patch. Each operation is
 * validated first; one that cannot apply (a path that does not exist, a failed `test`) is a
 * problem at that operation's line, and the operations after it are not applied.
 *
 * The origin tree follows the operations: what an `add`, `replace`, `copy` or `move` wrote is
 * located at its operation in the overlay, and list items shift as they do in the value.
 */
import jsonPatch, { type Operation } from 'fast-json-patch';
import { problem, type Problem } from '../problems.js';
import { childOrigin, type Origin } from './origin.js';

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] => value !== null && typeof value === 'object';

/** Gives `node` an explicit child per key of `value`, so children can be set, moved and removed. */
function ensureChildren(node: Origin, value: unknown): Map<string, Origin> {
  const children = (node.children ??= new Map());
  // A key with no explicit child is read at the same path of `node`'s source: made explicit as that.
  const keys = Array.isArray(value) ? value.map((_v, i) => i) : isContainer(value) ? Object.keys(value) : [];
  for (const key of keys) children.set(String(key), childOrigin(node, key));
  return children;
}

const unescape = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const segmentsOf = (pointer: string) => (pointer === '' ? [] : pointer.slice(1).split('/').map(unescape));

/** The origin node of the parent of `pointer` (made explicit on the way), the parent value, and the last segment. */
function parentOf(root: Origin, document: unknown, pointer: string): { node: Origin; value: unknown; last: string } | undefined {
  const segments = segmentsOf(pointer);
  if (segments.length === 0) return undefined;
  let node = root;
  let value = document;
  for (const segment of segments.slice(0, -1)) {
    const children = ensureChildren(node, value);
    const next = children.get(segment);
    if (!next || !isContainer(value)) return undefined;
    node = next;
    value = (value as Record<string, unknown>)[segment];
  }
  return { node, value, last: segments[segments.length - 1]! };
}

/** Shifts list children at or after `from` by `by` (+1 on insert, -1 on removal). */
function shift(children: Map<string, Origin>, length: number, from: number, by: 1 | -1): void {
  if (by === 1) for (let i = length - 1; i >= from; i -= 1) children.set(String(i + 1), children.get(String(i))!);
  else {
    for (let i = from; i < length - 1; i += 1) children.set(String(i), children.get(String(i + 1))!);
    children.delete(String(length - 1));
  }
}

function removeOrigin(root: Origin, before: unknown, pointer: string, by: Origin): void {
  const parent = parentOf(root, before, pointer);
  if (!parent) return;
  const children = ensureChildren(parent.node, parent.value);
  if (Array.isArray(parent.value)) shift(children, parent.value.length, Number(parent.last), -1);
  else children.delete(parent.last);
  // A problem about the parent now (a required field missing) is about this operation.
  parent.node.touched = by;
}

function addOrigin(root: Origin, before: unknown, pointer: string, origin: Origin, insert: boolean): void {
  const parent = parentOf(root, before, pointer);
  if (!parent) return;
  const children = ensureChildren(parent.node, parent.value);
  if (Array.isArray(parent.value)) {
    const index = parent.last === '-' ? parent.value.length : Number(parent.last);
    if (insert) shift(children, parent.value.length, index, 1);
    children.set(String(index), origin);
  } else children.set(parent.last, origin);
}

/**
 * Applies `operations` (written at `opsOrigin`, the overlay's `patch` list) to a copy of
 * `document`, whose positions are `origin` (updated in place).
 */
export function applyPatch(document: unknown, origin: Origin, operations: unknown, opsOrigin: Origin, problems: Problem[]): { value: unknown; ok: boolean } {
  let value = structuredClone(document);
  if (!Array.isArray(operations)) {
    problems.push(problem('overlay_invalid', 'patch must be a list of RFC 6902 operations ({op, path, value})', opsOrigin.source(opsOrigin.path)));
    return { value, ok: false };
  }
  for (const [i, raw] of operations.entries()) {
    const at = childOrigin(opsOrigin, i);
    const operation = raw as Operation;
    try {
      const invalid = jsonPatch.validate([operation], value);
      if (invalid) throw invalid;
      const before = value;
      value = jsonPatch.applyOperation(structuredClone(value), operation, false, true, true).newDocument;
      const written = operation.op === 'add' || operation.op === 'replace' ? childOrigin(at, 'value') : at;
      // The whole document replaced: all of it is where the operation wrote it.
      if ((operation.op === 'add' || operation.op === 'replace') && operation.path === '') {
        for (const key of Object.keys(origin) as (keyof Origin)[]) delete origin[key];
        Object.assign(origin, written);
        continue;
      }
      // Another kind: the whole document is read as another schema, so it is about this operation.
      if (operation.path === '/kind' && operation.op !== 'test') origin.recast = at;
      switch (operation.op) {
        case 'add':
        case 'copy':
          addOrigin(origin, before, operation.path, written, true);
          break;
        case 'replace':
          addOrigin(origin, before, operation.path, written, false);
          break;
        case 'move': {
          removeOrigin(origin, before, operation.from, at);
          // After the removal, the destination is read in the intermediate value.
          const intermediate = jsonPatch.applyOperation(structuredClone(before), { op: 'remove', path: operation.from }, false, true, true).newDocument;
          addOrigin(origin, intermediate, operation.path, written, true);
          break;
        }
        case 'remove':
          removeOrigin(origin, before, operation.path, at);
          break;
        default:
          break;
      }
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      const failedTest = (error as { name?: string }).name === 'TEST_OPERATION_FAILED';
      problems.push(
        problem(
          'overlay_patch_failed',
          failedTest
            ? `patch operation ${i + 1} (test ${JSON.stringify((operation as { path?: unknown }).path)}) failed: the base manifest holds another value; the patch was not applied`
            : `patch operation ${i + 1} cannot be applied: ${message}; the patch was not applied`,
          at.source(at.path),
        ),
      );
      return { value: document, ok: false };
    }
  }
  return { value, ok: true };
}
