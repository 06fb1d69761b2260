/** The desired object: one API object that the manifests declare, in normal form. */
import type { KindDescriptor, Pattern, Spec } from './kinds/types.js';
import type { SourceLocation } from './source.js';
import type { LoadedDocument } from './load/documents.js';

export interface DesiredObject {
  /** `Kind/name` for top-level objects, `Kind/<parent name>/<natural key>` for children. */
  address: string;
  descriptor: KindDescriptor;
  /** Name shown to people (`office`, `api path_prefix:/`). */
  name: string;
  /** The address without its kind: the name recorded in the ownership marker. */
  markerName: string;
  /** Address of the parent (rules, routes). */
  parent?: string;
  /** Normal form: references are tokens (addresses or ids), defaults filled in. */
  normal: Spec;
  /** Live id this manifest adopts explicitly (`adopt:`). */
  adopt?: string;
  /** `lifecycle.prevent_destroy` of the manifest (children inherit their parent's). */
  preventDestroy: boolean;
  /**
   * Fields of the normal form that plan, apply and drift leave alone: the manifest's
   * `lifecycle.ignore_changes` and gatehouse.yaml's `ignore:` for its kind (plan/ignore.ts).
   * Absent when none.
   */
  ignore?: readonly Pattern[];
  /**
   * Set on a paired object's view once the ignore rules were applied (plan/ignore.ts): the
   * fields that differ from the live object and are left as they are live.
   */
  ignoredFields?: readonly string[];
  /** References written as `{id: ...}` (or a weighted key `id:<id>`): checked against live objects by match. */
  idRefs?: { id: string; kind: string; locate(): SourceLocation }[];
  /** Addresses of desired objects this one references (its parent included). */
  references: string[];
  /** The manifest file as the ownership marker records it (load/manifest-paths.ts); none from standard input. */
  manifestPath?: string;
  doc: LoadedDocument;
  /** Where the object's spec sits in its document (`['spec']`, `['spec', 'rules', 2]`). */
  specPath: (string | number)[];
  source: SourceLocation;
}
