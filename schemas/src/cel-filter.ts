/**
 * Checks a subscription source's CEL `filter` (api-spec 6: "only fields marked filterable can
 * be used in filtering"). The expression is parsed with @marcbachmann/cel-js (the one CEL
 * library of gatehouse: policies use it too) within the limits of `cel-cost.ts`; then every
 * dotted name it reads (`ev.conn.client_ip`, `ev.conn.server_name.endsWith(...)`,
 * `has(ev.conn.server_port)`) is resolved against the event type's fields. The service's
 * documentation binds the event as `ev` (`EVENT_FILTER_BINDING`); names without it
 * (`conn.client_ip`), which earlier gatehouse versions required, are still read as fields, so
 * filters stored before keep working. Names bound by macros (`x` in `list.exists(x, ...)`) are
 * local and not fields. Problems carry the 1-based column where the offending name starts.
 *
 * Shared by the reference server (request validation) and the engine (validate time), so both
 * accept and refuse exactly the same filters. gatehouse never evaluates a filter (the service
 * does), so its cost is checked, not budgeted.
 */
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { CEL_LIMITS, celCostProblem, celLimitMessage, childrenOf, comprehensionOf } from './cel-cost.js';
import type { TrafficField } from './events.js';

/** Parses without declarations: a filter's names are checked against the event's fields below. */
const parser = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false, limits: CEL_LIMITS });

/** The name the service binds the event to in a filter: `ev.conn.server_name`. */
export const EVENT_FILTER_BINDING = 'ev';

export interface FilterProblem {
  message: string;
  /** 1-based column in the filter text. */
  column: number;
}

/** What the parser throws: a summary and where. */
interface ParseFailure {
  summary?: string;
  message: string;
  range?: { start: number };
}

/** A dotted name read by the expression, and where it starts. */
interface NameReference {
  path: string[];
  offset: number;
}

/**
 * Parses `filter` and checks that it reads only filterable fields of `fields`. Returns the
 * first problem found, or undefined for a valid filter.
 */
export function checkFilter(filter: string, fields: ReadonlyMap<string, TrafficField>): FilterProblem | undefined {
  let ast: ASTNode;
  try {
    ast = parser.parse(filter).ast;
  } catch (error) {
    const failure = error as ParseFailure;
    const column = (failure.range?.start ?? 0) + 1;
    return { message: `not valid CEL at column ${column}: ${celLimitMessage(failure.summary ?? failure.message.split('\n')[0]!)}`, column };
  }
  const cost = celCostProblem(ast);
  if (cost) return { message: `${cost.message} (column ${cost.offset + 1})`, column: cost.offset + 1 };
  for (const ref of references(ast, new Set())) {
    const problem = resolve(ref, fields);
    if (problem) return problem;
  }
  if (isPlainValue(ast)) {
    return {
      message: 'must be a condition (a comparison, a logical combination, has(...) or a method such as endsWith), not a value',
      column: 1,
    };
  }
  return undefined;
}

/**
 * True when the whole expression is a value that can never be a condition: a non-boolean
 * literal, a list or map, or a field read (no filterable field is boolean). The filter is not
 * type-checked (its names are the event's, known only here), so this catches the obvious
 * mistakes (`conn.client_ip`) while operators and calls are left to the service.
 */
function isPlainValue(ast: ASTNode): boolean {
  switch (ast.op) {
    case 'value':
      return typeof ast.args !== 'boolean';
    case 'list':
    case 'map':
    case 'id':
    case '.':
    case '.?':
      return true;
    default:
      return false;
  }
}

/** Resolves one name: the longest prefix that is a field is what it reads (map access beyond). */
function resolve(ref: NameReference, fields: ReadonlyMap<string, TrafficField>): FilterProblem | undefined {
  const column = ref.offset + 1;
  const filterable = [...fields.values()].filter((f) => f.filterable).map((f) => `${EVENT_FILTER_BINDING}.${f.name}`);
  const bound = ref.path[0] === EVENT_FILTER_BINDING;
  const path = bound ? ref.path.slice(1) : ref.path;
  if (bound && path.length === 0) {
    return {
      message: `'${EVENT_FILTER_BINDING}' (column ${column}) is the whole event; compare one of its filterable fields: ${filterable.join(', ')}`,
      column,
    };
  }
  for (let length = path.length; length > 0; length--) {
    const name = path.slice(0, length).join('.');
    const found = fields.get(name);
    if (!found) continue;
    if (found.filterable) return undefined;
    return {
      message: `field '${name}' (column ${column}) is not filterable; filterable fields: ${filterable.join(', ')}`,
      column,
    };
  }
  const name = ref.path.join('.');
  return {
    message: `'${name}' (column ${column}) is not a field of this event type; filterable fields: ${filterable.join(', ')}`,
    column,
  };
}

/** Every dotted name read by `node`, left to right, excluding names bound in `locals`. */
function* references(node: ASTNode, locals: ReadonlySet<string>): Generator<NameReference> {
  if (node.op === 'id' || node.op === '.' || node.op === '.?') {
    const chain = dottedChain(node);
    if (chain) {
      if (!locals.has(chain.path[0]!)) yield { path: chain.path, offset: chain.root.pos };
      return;
    }
  }
  const loop = comprehensionOf(node);
  if (loop) {
    yield* references(loop.receiver, locals);
    const inner = new Set([...locals, ...loop.variables]);
    for (const body of loop.body) yield* references(body, inner);
    return;
  }
  // A selection on something other than a name (`f(x).y`, `[a][0].b`), calls, operators,
  // literals: the names inside them.
  for (const child of childrenOf(node)) yield* references(child, locals);
}

/** `a.b.c` as ['a', 'b', 'c'] when `node` is a chain of selections rooted at a name. */
function dottedChain(node: ASTNode): { path: string[]; root: ASTNode } | undefined {
  const path: string[] = [];
  let current: ASTNode = node;
  while (current.op === '.' || current.op === '.?') {
    const [operand, field] = current.args as [ASTNode, string];
    path.push(field);
    current = operand;
  }
  if (current.op !== 'id') return undefined;
  return { path: [String(current.args), ...path.reverse()], root: current };
}
