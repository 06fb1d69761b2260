/**
 * Checks a subscription source's CEL `filter` (api-spec 6: "only fields marked filterable can
 * be used in filtering"). The expression is parsed with @bufbuild/cel; then every dotted name
 * it reads (`ev.conn.client_ip`, `ev.conn.server_name.endsWith(...)`, `has(ev.conn.server_port)`)
 * is resolved against the event type's fields. The service's documentation binds the event as
 * `ev` (`EVENT_FILTER_BINDING`); names without it (`conn.client_ip`), which earlier gatehouse
 * versions required, are still read as fields, so filters stored before keep working. Names bound by macros (`x` in `list.exists(x, ...)`)
 * are local and not fields. Problems carry the 1-based column where the offending name starts.
 *
 * Shared by the reference server (request validation) and the engine (validate time), so both
 * accept and refuse exactly the same filters.
 */
import { createRequire } from 'node:module';
import type { parse as celParse } from '@bufbuild/cel';
import type { TrafficField } from './events.js';

type Expr = ReturnType<typeof celParse>['expr'];

/**
 * @bufbuild/cel (and the protobuf runtime under it) is loaded at the first filter checked, not
 * when @gatehouse/schemas is imported: it is a large part of the start-up of every command and
 * of the server, and only event subscriptions with a `filter` need it. Loaded synchronously
 * (its CommonJS build) so that `checkFilter` stays synchronous for ajv and the engine.
 */
let celParser: typeof celParse | undefined;
const parse = (text: string): ReturnType<typeof celParse> => {
  celParser ??= (createRequire(import.meta.url)('@bufbuild/cel') as { parse: typeof celParse }).parse;
  return celParser(text);
};

/** The name the service binds the event to in a filter: `ev.conn.server_name`. */
export const EVENT_FILTER_BINDING = 'ev';

export interface FilterProblem {
  message: string;
  /** 1-based column in the filter text. */
  column: number;
}

interface ParseFailure {
  rawMessage?: string;
  message: string;
  location?: { start?: { column?: number } };
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
  let parsed: ReturnType<typeof celParse>;
  try {
    parsed = parse(filter);
  } catch (error) {
    const failure = error as ParseFailure;
    const column = failure.location?.start?.column ?? 1;
    return { message: `not valid CEL at column ${column}: ${failure.rawMessage ?? failure.message}`, column };
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const offsetOf = (expr: Expr): number => positions[String(expr.id)] ?? 0;

  for (const ref of references(parsed.expr, new Set(), offsetOf)) {
    const problem = resolve(ref, fields);
    if (problem) return problem;
  }
  if (isPlainValue(parsed.expr)) {
    return {
      message: 'must be a condition (a comparison, a logical combination, has(...) or a method such as endsWith), not a value',
      column: 1,
    };
  }
  return undefined;
}

/**
 * True when the whole expression is a value that can never be a condition: a non-boolean
 * literal, a list or map, or a field read (no filterable field is boolean). The parser does
 * not type-check, and @bufbuild/cel does not export its checker, so this catches the obvious
 * mistakes (`conn.client_ip`) while operators and calls are left to evaluation.
 */
function isPlainValue(expr: Expr): boolean {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'constExpr':
      return kind.value.constantKind.case !== 'boolValue';
    case 'listExpr':
    case 'structExpr':
    case 'identExpr':
      return true;
    case 'selectExpr':
      return !kind.value.testOnly;
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
    return { message: `'${EVENT_FILTER_BINDING}' (column ${column}) is the whole event; compare one of its filterable fields: ${filterable.join(', ')}`, column };
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

/** Every dotted name read by `expr`, left to right, excluding names bound in `locals`. */
function* references(expr: Expr | undefined, locals: ReadonlySet<string>, offsetOf: (e: Expr) => number): Generator<NameReference> {
  if (!expr) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
    case 'selectExpr': {
      const chain = dottedChain(expr);
      if (chain) {
        if (!locals.has(chain.path[0]!)) yield { path: chain.path, offset: offsetOf(chain.root) };
        return;
      }
      // A selection on something other than a name, e.g. `[a][0].b` or `f(x).y`.
      if (kind.case === 'selectExpr') yield* references(kind.value.operand, locals, offsetOf);
      return;
    }
    case 'callExpr':
      yield* references(kind.value.target, locals, offsetOf);
      for (const arg of kind.value.args) yield* references(arg, locals, offsetOf);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) yield* references(element, locals, offsetOf);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') yield* references(entry.keyKind.value, locals, offsetOf);
        yield* references(entry.value, locals, offsetOf);
      }
      return;
    case 'comprehensionExpr': {
      const c = kind.value;
      yield* references(c.iterRange, locals, offsetOf);
      yield* references(c.accuInit, locals, offsetOf);
      const inner = new Set([...locals, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
      yield* references(c.loopCondition, inner, offsetOf);
      yield* references(c.loopStep, inner, offsetOf);
      yield* references(c.result, inner, offsetOf);
      return;
    }
    default:
      return; // constants
  }
}

/** `a.b.c` as ['a', 'b', 'c'] when `expr` is a chain of selections rooted at a name. */
function dottedChain(expr: Expr): { path: string[]; root: Expr } | undefined {
  const path: string[] = [];
  let current: Expr | undefined = expr;
  while (current) {
    const kind: Expr['exprKind'] = current.exprKind;
    if (kind.case === 'identExpr') return { path: [kind.value.name, ...path.reverse()], root: current };
    if (kind.case !== 'selectExpr') return undefined;
    path.push(kind.value.field);
    current = kind.value.operand;
  }
  return undefined;
}
