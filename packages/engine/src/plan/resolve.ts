/**
 * Step 3, resolve: manifest documents -> desired objects. Expands inline children (rules,
 * routes), turns references by name into the address of the named manifest (or an `{id}`
 * into the id itself; a reference by value, `{reserved_tcp_address: ssh}`, into the same token
 * in its place), reports broken references and duplicate names, and builds each object's
 * normal form with its kind descriptor.
 */
import { KINDS, childrenOf } from '../kinds/index.js';
import type { KindDescriptor, Spec } from '../kinds/types.js';
import type { DesiredObject } from '../desired.js';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';
import type { ValidDocument } from '../load/validate.js';
import { isMap, rewrite } from '../identity/patterns.js';
import { withArticle } from '../article.js';
import { append } from '../append.js';

const byManifestKind = new Map(KINDS.filter((k) => k.manifestKind).map((k) => [k.manifestKind!, k]));

export function resolve(documents: ValidDocument[], declaredElsewhere: string[] = []): { desired: DesiredObject[]; problems: Problem[] } {
  const problems: Problem[] = [];
  // Names per kind, first declaration wins; later ones are duplicates.
  const names = new Map<string, ValidDocument>();
  const unique: ValidDocument[] = [];
  for (const doc of documents) {
    const key = `${doc.value.kind}/${doc.value.name}`;
    const first = names.get(key);
    if (first) {
      problems.push(
        problem(
          'duplicate_name',
          `${doc.value.kind} "${doc.value.name}" is already declared at ${first.file}:${first.locate(['name']).line}; names are unique per kind, rename one`,
          doc.locate(['name']),
        ),
      );
      continue;
    }
    names.set(key, doc);
    unique.push(doc);
  }
  const kindsByName = new Map<string, string[]>();
  for (const doc of unique) append(kindsByName, doc.value.name, doc.value.kind);
  const declared = new Set(declaredElsewhere);

  /** A reference (name, `{id}`, or a weighted key `id:<id>`) -> token; problems when broken. */
  const token = (
    ref: unknown,
    kind: string,
    doc: ValidDocument,
    path: () => (string | number)[],
    found: string[],
    isKey = false,
    ids: { id: string; kind: string; locate(): SourceLocation }[] = [],
  ): string => {
    if (typeof ref === 'object' && ref !== null) {
      const id = String((ref as { id: string }).id);
      ids.push({ id, kind, locate: () => doc.locate(path()) });
      return id;
    }
    const name = String(ref);
    if (isKey && name.startsWith('id:')) {
      ids.push({ id: name.slice(3), kind, locate: () => doc.locate(path(), { key: true }) });
      return name.slice(3);
    }
    const address = `${kind}/${name}`;
    if (declared.has(address)) return address;
    if (names.has(address)) {
      found.push(address);
      return address;
    }
    const others = kindsByName.get(name);
    const at = doc.locate(path(), { key: isKey });
    problems.push(
      others
        ? problem(
            'reference_wrong_kind',
            `"${name}" is ${others.map(withArticle).join(' and ')}, but ${withArticle(kind)} is expected here; name ${withArticle(kind)} manifest or write {id: "<id>"}`,
            at,
          )
        : problem(
            'reference_missing',
            `no ${kind} manifest is named "${name}"; declare one, fix the name, or write {id: "<id>"} for an object gatehouse does not manage`,
            at,
          ),
    );
    return name;
  };

  const desired: DesiredObject[] = [];
  /** `specPath` is `SPEC` for a document's own object, `{field, index}` for a child. */
  const build = (descriptor: KindDescriptor, doc: ValidDocument, spec: Spec, specPath: SpecPath, identity: Identity) => {
    const found: string[] = [];
    // Most objects (every IP policy rule) reference nothing: no list of ids for them.
    let ids: { id: string; kind: string; locate(): SourceLocation }[] | undefined;
    let resolved: unknown = spec;
    for (const ref of descriptor.refs) {
      const into = (ids ??= []);
      const byValue = ref.byValue;
      resolved = rewrite(resolved, ref.pattern, (value, path) => {
        // By value: only `{<field>: <reference>}` is a reference; anything else is the value itself.
        if (byValue) {
          if (!isMap(value) || !(byValue.field in value)) return value;
          return token(value[byValue.field], ref.kind, doc, () => [...pathOf(specPath), ...path, byValue.field], found, false, into);
        }
        return token(value, ref.kind, doc, () => [...pathOf(specPath), ...path], found, ref.pattern.at(-1) === '{}', into);
      });
    }
    const object = new ResolvedObject(identity, descriptor, descriptor.fromManifest(resolved as Spec, doc.value.name), doc, specPath);
    if (doc.value.lifecycle?.prevent_destroy === true) object.preventDestroy = true;
    if (ids && ids.length > 0) object.idRefs = ids;
    object.references = identity.parent
      ? found.length === 0
        ? (identity.parentOnly ?? [identity.parent])
        : [...new Set([identity.parent, ...found])]
      : found.length > 1
        ? [...new Set(found)]
        : found;
    if (specPath === SPEC && doc.value.adopt !== undefined) object.adopt = doc.value.adopt;
    desired.push(object);
    return object;
  };

  for (const doc of unique) {
    const descriptor = byManifestKind.get(doc.value.kind)!;
    const children = childrenOf(descriptor.kind);
    const own = children.length === 0 ? { ...doc.value.spec } : withoutFields(doc.value.spec, children);
    const name = doc.value.name;
    const parent = build(descriptor, doc, own, SPEC, { address: `${descriptor.kind}/${name}`, name });
    // The references of a child that references only its parent (every IP policy rule): one
    // array for all of them, frozen (references are replaced, never changed in place).
    const parentOnly = Object.freeze([parent.address]) as string[];
    for (const child of children) {
      const items = (doc.value.spec[child.child!.field] as Spec[] | undefined) ?? [];
      items.forEach((item, i) => {
        // A child that failed its schema (the document goes on partially) is left out.
        if (doc.partial?.excluded.has(`${child.child!.field}/${i}`)) return;
        // The address (from the natural key of the normal form) and the name are built when read.
        build(child, doc, item, { field: child.child!.field, index: i }, { address: '', name: '', parent: parent.address, parentOnly });
      });
    }
  }
  addRequirements(desired);
  return { desired, problems };
}

/**
 * `spec` without the fields its children are declared in (an IP policy's `rules`): what the
 * parent's normal form is built from. Built from its entries, not by deleting keys from a copy
 * (a slow dictionary-mode object); a key named `__proto__` stays an own field, as in a spread copy.
 */
function withoutFields(spec: Spec, children: readonly KindDescriptor[]): Spec {
  const fields = new Set(children.map((child) => child.child!.field));
  return Object.fromEntries(Object.entries(spec).filter(([key]) => !fields.has(key)));
}

/**
 * `requires`: an object that needs another by natural key (an edge's hostport, its reserved
 * domain) references the desired object that has that key, so plan creates that one first.
 */
function addRequirements(desired: DesiredObject[]): void {
  const byKey = new Map<string, string>(); // kind \0 natural key -> address
  for (const d of desired) {
    if (!d.parent && d.descriptor.naturalKey) byKey.set(`${d.descriptor.kind}\0${d.descriptor.naturalKey(d.normal)}`, d.address);
  }
  for (const d of desired) {
    const needs = d.descriptor.requires?.(d.normal);
    if (needs)
      for (const need of needs) {
        for (const key of need.keys) {
          const address = byKey.get(`${need.kind}\0${key}`);
          if (address !== undefined && !d.references.includes(address)) d.references = [...d.references, address];
        }
      }
  }
}

/** What `build` is told of an object's identity; a child's address is set once its key is known. */
interface Identity {
  address: string;
  name: string;
  parent?: string;
  /** `[parent]`, shared by the children that reference nothing else. */
  parentOnly?: string[];
}

/** Where an object's spec is in its document: the document's spec, or one child of a list. */
type SpecPath = typeof SPEC | { field: string; index: number };
const SPEC = Object.freeze(['spec'] as const);
const pathOf = (at: SpecPath): (string | number)[] => (at === SPEC ? ['spec'] : ['spec', (at as { field: string }).field, (at as { index: number }).index]);

/**
 * A desired object as resolve builds it. A class, so that what is computed when read (`source`,
 * a child's name and address, its spec path) costs nothing per object: a manifest may hold
 * 100,000 IP policy rules, each one of these (issue 15: validate's peak under 10x the input).
 * `source` is located at each read (a plan reads it once per change; validate only for a
 * problem): no cached location per object.
 */
class ResolvedObject implements DesiredObject {
  /** Absent for a child until first read (see `address`). */
  #address: string | undefined;
  declare parent?: string;
  declare adopt?: string;
  declare idRefs?: { id: string; kind: string; locate(): SourceLocation }[];
  declare preventDestroy: boolean;
  references: string[] = [];
  /**
   * Set by the orchestrator after resolve (the prune scope). A field from the start: a property
   * added to every object later would cost each a separate property store.
   */
  manifestPath: string | undefined = undefined;
  /** The name; undefined for a child until first read (see `name`). */
  #name: string | undefined;
  /**
   * Where the spec is: -1 for the document's own, else item `#index` of the list its kind is a
   * child in (`descriptor.child.field`).
   */
  #index = -1;

  constructor(
    identity: Identity,
    readonly descriptor: KindDescriptor,
    readonly normal: Spec,
    readonly doc: ValidDocument,
    at: SpecPath,
  ) {
    if (identity.address) this.#address = identity.address;
    if (at === SPEC) this.#name = identity.name;
    else this.#index = (at as { index: number }).index;
    // Assigned for every object (undefined for a document's own): one hidden class for all.
    this.parent = identity.parent;
  }

  /**
   * A child's name is `<parent name> <label>` (its document's name), built when first read
   * (reports, plans), so that validating many rules keeps no extra string per rule.
   */
  get name(): string {
    return (this.#name ??= `${this.doc.value.name} ${this.descriptor.label(this.normal)}`);
  }

  /**
   * A child's address, `<Kind>/<parent name>/<natural key>`, is built when first read (plan
   * reads them all), so that validating many rules keeps no address string per rule.
   */
  get address(): string {
    return (this.#address ??= [this.descriptor.kind, this.#childName()].join('/'));
  }

  /** The address without its kind (`office`, `office/10.0.0.0/8`), computed when read: no second string per object. */
  get markerName(): string {
    return this.#address !== undefined ? this.#address.slice(this.descriptor.kind.length + 1) : this.#childName();
  }

  /** `<parent name>/<natural key>` of a child (join, not a template: one flat string). */
  #childName(): string {
    const parent = this.parent!;
    return [parent.slice(parent.indexOf('/') + 1), this.descriptor.naturalKey!(this.normal)].join('/');
  }

  /** `['spec']` or `['spec', field, index]`: a fresh array at each read (kept compact instead). */
  get specPath(): (string | number)[] {
    return this.#index < 0 ? ['spec'] : ['spec', this.descriptor.child!.field, this.#index];
  }

  get source(): SourceLocation {
    return this.doc.locate(this.#index < 0 ? [] : this.specPath);
  }
}
ResolvedObject.prototype.preventDestroy = false;
