/**
 * What a CEL expression may cost, checked once it is parsed and before it is ever evaluated:
 * policy rules (engine `policy/`) and event subscription filters (`cel-filter.ts`) both come
 * from files a pull request can change, so an expression that would run for minutes or fill the
 * memory is refused where it is written, with its position.
 *
 * - Size: the parser's structural limits (`CEL_LIMITS`, given to every `Environment`): at most
 *   500 nodes, nesting 32 deep, list and map literals of 100 entries, calls of 16 arguments.
 * - Nesting of comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`): each one is a
 *   loop over a list, and loops inside loops multiply. At most `MAX_COMPREHENSION_NESTING` (2)
 *   inside one another: nine nested `.all()` over ten items are 10^9 steps.
 * - A list built inside a list: a `map` or `filter` in the body of another `map` or `filter`
 *   keeps the product of both lists in memory (nine nested `.map()` filled 4 GB), where a
 *   condition (`all`, `exists`) inside a loop keeps nothing.
 *
 * A comprehension's receiver (`a.map(x, f).all(y, p)`) runs once, before it: a chain of them is
 * not nesting. What these limits cannot see (the size of the lists an object holds, a regular
 * expression that backtracks) the evaluator bounds with its budget (engine `policy/budget.ts`).
 */
import type { ASTNode, Limits } from '@marcbachmann/cel-js';

/** The parser's limits for every gatehouse expression (`new Environment({ limits: CEL_LIMITS })`). */
export const CEL_LIMITS: Limits = { maxAstNodes: 500, maxDepth: 32, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 16 };

/** Comprehensions that may run inside one another. */
export const MAX_COMPREHENSION_NESTING = 2;

/** The macros that loop over a list or map. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter']);
/** Those that build a list as they go. */
const BUILDERS = new Set(['map', 'filter']);

export interface CelCostProblem {
  message: string;
  /** 0-based offset in the expression of the node at fault. */
  offset: number;
}

const isNode = (value: unknown): value is ASTNode => value !== null && typeof value === 'object' && 'op' in value && 'pos' in value;

/**
 * The parts of a comprehension call (`list.all(x, p)`, `list.map(x, f, t)`): its receiver, the
 * names it binds and its body expressions; undefined for any other node.
 */
export function comprehensionOf(node: ASTNode): { name: string; receiver: ASTNode; variables: string[]; body: ASTNode[] } | undefined {
  if (node.op !== 'rcall') return undefined;
  const [name, receiver, args] = node.args as [string, ASTNode, ASTNode[]];
  if (!COMPREHENSIONS.has(name) || args.length < 2 || args[0]!.op !== 'id') return undefined;
  // map(x, filter, transform) binds one name; the two-variable forms bind two.
  const bound = name !== 'map' && args.length === 3 && args[1]!.op === 'id' ? 2 : 1;
  return { name, receiver, variables: args.slice(0, bound).map((a) => String(a.args)), body: args.slice(bound) };
}

/** The child nodes of `node`, in source order. */
export function childrenOf(node: ASTNode): ASTNode[] {
  const out: ASTNode[] = [];
  const collect = (value: unknown): void => {
    if (isNode(value)) out.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
  };
  collect(node.args);
  return out;
}

/**
 * The first cost problem of a parsed expression: comprehensions nested too deep, or a list
 * built inside the building of another.
 */
export function celCostProblem(ast: ASTNode): CelCostProblem | undefined {
  const visit = (node: ASTNode, depth: number, building: string | undefined): CelCostProblem | undefined => {
    const loop = comprehensionOf(node);
    if (!loop) {
      for (const child of childrenOf(node)) {
        const found = visit(child, depth, building);
        if (found) return found;
      }
      return undefined;
    }
    const inner = depth + 1;
    if (inner > MAX_COMPREHENSION_NESTING) {
      return {
        message: `${inner} comprehensions (all, exists, map, filter...) run inside one another here; at most ${MAX_COMPREHENSION_NESTING} may (each multiplies the steps of the ones around it)`,
        offset: node.pos,
      };
    }
    if (building && BUILDERS.has(loop.name)) {
      return {
        message: `${loop.name}() inside the ${building}() of a list builds a list of lists; compute a condition inside (exists, all, size) instead`,
        offset: node.pos,
      };
    }
    const builds = BUILDERS.has(loop.name) ? loop.name : building;
    return visit(loop.receiver, depth, building) ?? loop.body.map((b) => visit(b, inner, builds)).find(Boolean);
  };
  return visit(ast, 0, undefined);
}

/** A parser limit's error (`Exceeded maxAstNodes (500)`) in words; other messages as they are. */
export function celLimitMessage(summary: string): string {
  const exceeded = /^Exceeded (\w+) \((\d+)\)/.exec(summary);
  if (!exceeded) return summary;
  const what: Record<string, string> = {
    maxAstNodes: `the expression is too large (more than ${exceeded[2]} parts); split it into several rules`,
    maxDepth: `the expression nests deeper than ${exceeded[2]} levels; simplify it`,
    maxListElements: `a list literal has more than ${exceeded[2]} elements`,
    maxMapEntries: `a map literal has more than ${exceeded[2]} entries`,
    maxCallArguments: `a call has more than ${exceeded[2]} arguments`,
  };
  return what[exceeded[1]!] ?? summary;
}
