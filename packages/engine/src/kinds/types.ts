/**
 * The kind descriptor: everything the engine knows about one kind of API object, in one
 * place. Every pipeline step is generic over descriptors. A new kind is this descriptor plus
 * its schemas, its server resource and its tests (docs/architecture.md, "Adding a kind").
 *
 * Two forms of a spec appear here:
 * - the manifest form (what a user writes, references by name or `{id}`), and
 * - the normal form: the same shape with references replaced by tokens (the address
 *   `Kind/name` of a desired object, or a live id), server defaults filled in, set-valued
 *   lists sorted and server-derived fields dropped. Desired and live objects are compared in
 *   normal form, so a configuration just applied plans as no changes.
 */
import type { ApiObject } from '../ports.js';
import type { Problem, ProblemCode } from '../problems.js';
import type { SourceLocation } from '../source.js';

export type Spec = Record<string, unknown>;
/** A path pattern into a spec: `*` is every item of a list, `{}` every key of a map. */
export type Pattern = readonly string[];

export interface RefField {
  pattern: Pattern;
  /** Kind of the referenced object. */
  kind: string;
  /** The list holding these references is a set: its order does not matter. */
  set?: boolean;
  /**
   * A reference that stands for a value of the referenced object rather than its id (a TCP
   * edge's hostport is the `addr` the service assigned to a reserved TCP address). The manifest
   * writes it as `{<field>: <name or {id}>}` in a place that may also hold the value itself
   * (`1.tcp.example.com:20022`), which is no reference; the normal form holds the token in its
   * place. Live objects hold the value: plan compares by identity through the tokens of every
   * live object of `kind` (plan/reference-tokens.ts), and apply sends the referenced object's
   * `value` field (`CallContext.referencedValue`), known once it exists.
   */
  byValue?: { field: string; value: string };
}

export interface Collection {
  /** List path, e.g. `/ip_policies`. */
  path: string;
  /** Envelope key, e.g. `ip_policies`. */
  listKey: string;
}

/** One HTTP request apply will make; bodies are the API's request bodies. */
export interface ApiCall {
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: ApiObject;
}

/** What apply knows when it turns a change into calls. */
export interface CallContext {
  /** Live id of the object (update, delete); undefined for a create. */
  id?: string;
  /** Live id of the parent object (routes, rules). */
  parentId?: string;
  /** Live id for a reference token (an address of a desired object, or an id). */
  resolve(token: string): string;
  /**
   * For a reference by value (`RefField.byValue`): the `field` of the object a token names, as
   * read or as its create answered (an object created earlier in the same apply is known);
   * undefined when `token` names no object, i.e. it is a value written out.
   */
  referencedValue?(token: string, field: string): string | undefined;
  /** The metadata to write: the user's own value plus this stack's ownership marker. */
  metadata?: string;
}

/** Context of the server-rule checks of validate. */
export interface CheckContext {
  /** Location of a path inside this object's spec. */
  at(path: readonly (string | number)[], options?: { key?: boolean }): SourceLocation;
  /** The object's spec as written (after `${env:}` substitution), for rules normal forms hide. */
  manifest?: Spec;
}

export interface KindDescriptor {
  /** Kind of API object, as in plan addresses (`IPPolicy`, `HTTPSEdgeRoute`). */
  kind: string;
  /** What messages call one object (`IP policy`). */
  title: string;
  /**
   * The variable policy rules read this kind's object as (`route`, `edge`, `rule`); the kind
   * in snake_case when absent. A child's rules also see its parent under the parent's name.
   */
  policyName?: string;
  /** The manifest kind this descriptor reads, for top-level kinds. */
  manifestKind?: string;
  /** For objects declared inline in their parent's manifest (rules, routes). */
  child?: {
    parentKind: string;
    /** Field of the parent's manifest spec holding the children's specs. */
    field: string;
    /** Problem code when two siblings share a natural key. */
    duplicate: ProblemCode;
    /** Manifest field holding the natural key: an environment's overlay merges the list by it. */
    key: string;
  };
  /** How observe reads live objects: own paginated lists, or inline in the parent's object. */
  observe: { lists: Collection[]; parentId?(live: ApiObject): string | undefined } | { inline: { field: string } };
  /**
   * For kinds listed from several collections (backends, by type): the collection a desired
   * object is listed in. Kinds with one list need none.
   */
  listedIn?(normal: Spec): string;
  /** Whether the object has `metadata` (so it can carry the ownership marker). */
  metadata: boolean;
  /**
   * Natural key, for kinds whose key the service keeps unique within the parent (children)
   * or the whole account (an IP restriction's type, a bot user's name). Identity uses it.
   */
  naturalKey?(normal: Spec): string;
  /**
   * Other natural keys under which a live object without a marker is this desired object, tried
   * after `naturalKey` (a bot user that still has its manifest name before `spec.name` renames
   * it). `manifestName` is the desired object's manifest name.
   */
  aliases?(normal: Spec, manifestName: string): string[];
  /** Keys that no two objects of this kind may share (hostports): validate and adoption use them. */
  uniqueKeys?(normal: Spec): { key: string; path: (string | number)[]; code: 'duplicate_hostport' | 'duplicate_restriction_type' | 'duplicate_name' }[];
  /** Manifest spec (after references are tokens) -> normal form. `name` is the manifest name. */
  fromManifest(spec: Spec, name: string): Spec;
  /** Live object -> normal form (Refs become ids; tokens are canonicalized afterwards). */
  fromLive(live: ApiObject, collection: Collection | undefined): Spec;
  /** References in the manifest and normal forms. */
  refs: RefField[];
  /** Fields that hold secrets (patterns over the normal form). */
  sensitive: Pattern[];
  /** Top-level fields that cannot be updated: a change means replace. */
  immutable: string[];
  /** Lists whose order does not matter (sorted before comparing). */
  sets?: Pattern[];
  /** Fields the server chooses when the manifest leaves them out (ignored then). */
  serverChosen?: Pattern[];
  /**
   * Fields of the manifest spec whose text the service interpolates itself (traffic policies,
   * header values: `${req.url.path}`): load keeps their `${...}` as written, substituting only
   * gatehouse's own `${env:}` and `${var:}` (load/interpolate.ts).
   */
  serviceText?: Pattern[];
  /**
   * Top-level fields the service takes on create only and never updates, which change nothing
   * after (a reserved domain's deprecated `region`): sent on create, never compared, so a
   * difference is no change and no drift (as if `lifecycle.ignore_changes` named them).
   */
  createOnly?: string[];
  /** Name shown to people for a live or desired object. */
  label(normal: Spec, name?: string): string;
  /** The service's value rules for one object, checked before any request. */
  check?(normal: Spec, ctx: CheckContext): Problem[];
  /**
   * Objects this one needs to exist first, by kind and natural key (an edge's hostports need
   * their reserved domains or addresses): where the manifests declare one, resolve makes it a
   * reference, so plan creates it first. Keys nothing declares are left to the server to check.
   */
  requires?(normal: Spec): { kind: string; keys: string[] }[];
  /**
   * References whose target must keep at least one child of `childKind` while this object uses
   * it (a dashboard restriction's policies keep a rule: the service refuses to delete the last
   * one). Match refuses a plan that would delete all of them, at `path` in this object's spec.
   */
  keepsChildren?(normal: Spec): { token: string; path: (string | number)[]; childKind: string; why: string }[];
  /** How a change becomes API calls (apply executes exactly these). */
  calls: {
    create(normal: Spec, ctx: CallContext): ApiCall[];
    update(before: Spec, after: Spec, changed: string[], ctx: CallContext): ApiCall[];
    delete(normal: Spec, ctx: CallContext): ApiCall[];
  };
}
