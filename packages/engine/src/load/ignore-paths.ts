/**
 * Validate's check of ignore paths (`lifecycle.ignore_changes`, and gatehouse.yaml's `ignore:`
 * through `ignorePathProblem`): each must parse (identity/ignore-path.ts) and be able to match
 * a field of its kind, followed through the kind's manifest schema: a typo (`circut_breaker`)
 * would otherwise silence nothing without a word. Each problem is at the path's own line.
 *
 * Also refused, with what to write instead: a children's field as a whole (`rules`, `routes[*]`:
 * children are objects of their own, created and deleted by the manifest), a child's natural
 * key (`rules[*].cidr`: it is what pairs the child, so it never differs) and a field that
 * selects the shape of the object (a backend's `type`).
 *
 * The schemas are imported on first use: only manifests with ignore rules pay for them.
 */
import { distance } from 'fastest-levenshtein';
import { problem, type Problem } from '../problems.js';
import { childrenOf, KINDS } from '../kinds/index.js';
import { formatIgnorePath, parseIgnorePath } from '../identity/ignore-path.js';
import type { ValidDocument } from './validate.js';

/** The part of a JSON Schema that the walk follows. */
interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode | SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  discriminator?: { propertyName?: string };
}

let specSchemas: Promise<Record<string, SchemaNode>> | undefined;

/** Manifest kind -> the schema of its `spec`. */
function loadSpecSchemas(): Promise<Record<string, SchemaNode>> {
  return (specSchemas ??= import('@gatehouse/schemas').then(({ MANIFEST_SCHEMAS }) =>
    Object.fromEntries(Object.entries(MANIFEST_SCHEMAS).map(([kind, schema]) => [kind, (schema as SchemaNode).properties!.spec!])),
  ));
}

/** Problems of every document's `lifecycle.ignore_changes`; `[]` (and no import) when none has one. */
export async function ignorePathProblems(documents: readonly ValidDocument[]): Promise<Problem[]> {
  const withRules = documents.filter((doc) => (doc.value.lifecycle?.ignore_changes?.length ?? 0) > 0);
  if (withRules.length === 0) return [];
  const schemas = await loadSpecSchemas();
  const problems: Problem[] = [];
  for (const doc of withRules) {
    doc.value.lifecycle!.ignore_changes!.forEach((text, i) => {
      const why = explain(schemas, doc.value.kind, text);
      if (why) problems.push(problem('ignore_path_invalid', `lifecycle.ignore_changes: ${why}`, doc.locate(['lifecycle', 'ignore_changes', i])));
    });
  }
  return problems;
}

/** Why `text` cannot be an ignore path of manifest kind `kind`; undefined when it can. */
export async function ignorePathProblem(kind: string, text: string): Promise<string | undefined> {
  return explain(await loadSpecSchemas(), kind, text);
}

function explain(schemas: Record<string, SchemaNode>, kind: string, text: string): string | undefined {
  const parsed = parseIgnorePath(text);
  if ('error' in parsed) return `"${text}": ${parsed.error}`;
  const pattern = parsed.pattern;
  const written = formatIgnorePath(pattern);
  const descriptor = KINDS.find((k) => k.manifestKind === kind);
  const child = childrenOf(descriptor?.kind ?? kind).find((c) => c.child!.field === pattern[0]);
  if (child) {
    if (pattern.length <= 2) {
      return `"${written}" names the ${child.child!.field} themselves: they are objects of their own (${child.kind}), created and deleted as the manifest lists them; ignore fields of each instead, e.g. ${child.child!.field}[*].description`;
    }
    if (pattern[1] !== '*')
      return `"${written}": select the ${child.child!.field} with [*] (every one of them), e.g. ${child.child!.field}[*].${pattern.slice(2).join('.')}`;
    if (pattern.length === 3 && pattern[2] === child.child!.key) {
      return `"${written}": ${child.child!.key} identifies each of the ${child.child!.field}, so it never differs; it cannot be ignored`;
    }
  }
  let nodes = expand(schemas[kind] ? [schemas[kind]!] : []);
  for (let i = 0; i < pattern.length; i++) {
    const segment = pattern[i]!;
    const last = i === pattern.length - 1;
    if (last && segment !== '*') {
      const selector = nodes.find((n) => n.discriminator?.propertyName === segment);
      if (selector) return `"${written}": ${segment} selects the kind of ${kind} (its other fields depend on it); it cannot be ignored`;
    }
    const next = expand(nodes.flatMap((node) => step(node, segment)));
    if (next.length === 0) {
      const where = i === 0 ? `the spec of ${kind}` : formatIgnorePath(pattern.slice(0, i));
      return `"${written}" can match no field of ${kind}: ${where} ${segment === '*' ? 'is neither a list nor a map' : `has no field "${segment}"`}${hint(nodes, segment)}`;
    }
    nodes = next;
  }
  return undefined;
}

/** The schemas a segment leads to from one schema. */
function step(node: SchemaNode, segment: string): SchemaNode[] {
  const out: SchemaNode[] = [];
  if (segment === '*') {
    if (Array.isArray(node.items)) out.push(...node.items);
    else if (node.items) out.push(node.items);
    out.push(...Object.values(node.properties ?? {}), ...Object.values(node.patternProperties ?? {}));
    if (typeof node.additionalProperties === 'object') out.push(node.additionalProperties);
    return out;
  }
  const named = node.properties?.[segment];
  if (named) out.push(named);
  for (const [pattern, schema] of Object.entries(node.patternProperties ?? {})) if (new RegExp(pattern, 'u').test(segment)) out.push(schema);
  if (typeof node.additionalProperties === 'object') out.push(node.additionalProperties);
  return out;
}

/** A schema and the alternatives it is made of (anyOf, oneOf, allOf), flattened. */
function expand(nodes: SchemaNode[]): SchemaNode[] {
  return nodes.flatMap((node) => [node, ...expand([...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])]);
}

/** `; did you mean X?` for a near field name, else the fields there are (a few). */
function hint(nodes: SchemaNode[], segment: string): string {
  const names = [...new Set(nodes.flatMap((n) => Object.keys(n.properties ?? {})))];
  if (names.length === 0) return '';
  const near = names.map((name) => ({ name, d: distance(name, segment) })).sort((a, b) => a.d - b.d)[0]!;
  if (segment !== '*' && near.d <= Math.max(2, Math.floor(segment.length / 3))) return `; did you mean ${near.name}?`;
  return `; its fields are ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', ...' : ''}`;
}
