/**
 * Where each part of a document built from several sources was written. A base document
 * patched by overlays is one value, but an error in it must point at the line that caused
 * it: a field an overlay set points into the overlay, the rest into the base.
 *
 * An `Origin` says "this node was written at `path` of `source`". Its `children` are filled
 * only where a node's parts come from different sources; a node without children stands for
 * its whole subtree, read in its source at the same relative paths.
 *
 * An overlay can also change a node without writing it: remove one of its keys (a patch's
 * `remove`, a merge's `null`), which a problem about the node then points at (`touched`), or
 * change what the whole document is read as (a patch of its `kind`), which every problem
 * located in the base then points at (`recast`, on the root). Overlay problems are reported at
 * the overlay's line, whatever the patch touches.
 */
import type { SourceLocation } from '../source.js';
import type { LoadedDocument, Path } from '../load/documents.js';

type Locate = LoadedDocument['locate'];

export interface Origin {
  source: Locate;
  path: Path;
  /** Children by segment (map keys and list indices, as strings) where they differ. */
  children?: Map<string, Origin>;
  /** The overlay operation that removed a key of this node: a problem about the node is about it. */
  touched?: Origin;
  /** On the root: the patch operation that changed the document's kind. */
  recast?: Origin;
}

export const originOf = (source: Locate, path: Path = []): Origin => ({ source, path });

/** The origin of `segment` under `origin`: its own entry, or the same source one level down. */
export function childOrigin(origin: Origin, segment: string | number): Origin {
  return origin.children?.get(String(segment)) ?? { source: origin.source, path: [...origin.path, segment] };
}

/** Where the node at `path` was written (its nearest recorded ancestor's source, further down). */
export function locateIn(root: Origin, path: Path, options?: { key?: boolean }): SourceLocation {
  let node = root;
  let i = 0;
  for (; i < path.length; i += 1) {
    const next = node.children?.get(String(path[i]));
    if (!next) break;
    node = next;
  }
  if (i === path.length && node.touched) return node.touched.source(node.touched.path);
  if (root.recast && node.source === root.source) return root.recast.source(root.recast.path);
  return node.source([...node.path, ...path.slice(i)], options);
}

/** A deep copy of the recorded children (sources are shared; they are read-only). */
export function cloneOrigin(origin: Origin): Origin {
  return origin.children ? { ...origin, children: new Map([...origin.children].map(([k, v]) => [k, cloneOrigin(v)])) } : { ...origin };
}
