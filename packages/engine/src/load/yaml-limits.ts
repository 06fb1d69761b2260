/**
 * Limits on what a manifest's YAML may make the parser do, as problems at their place rather
 * than a crash, a raw `ReferenceError` or gigabytes of memory:
 * - nesting deeper than `MAX_NESTING` collections (no manifest needs more than about ten; a
 *   file of ten million `[` would otherwise exhaust the stack or the parser's memory). Flow
 *   brackets are counted before parsing (`flowNestingProblem`), so such a file is never
 *   parsed; block nesting is measured on the composed document (`nestingProblem`);
 * - aliases that expand past the `yaml` package's `maxAliasCount` of 100 ("billion laughs"),
 *   reported at the first alias of an anchor that itself holds aliases (`aliasProblem`).
 */
import type { Document, Node } from 'yaml';
import { onFirstUse } from '../on-first-use.js';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';

/** Only the checks of documents composed by `yaml` use it, and they follow its own import. */
const yaml = onFirstUse<typeof import('yaml')>('yaml');

export const MAX_NESTING = 64;
export const MAX_ALIAS_COUNT = 100;

const nestingMessage = `collections nested more than ${MAX_NESTING} deep; no manifest needs that, so this file is refused rather than parsed`;

/**
 * The first flow bracket (`[` or `{`) that opens a collection deeper than `MAX_NESTING`, ignoring
 * quoted strings and comments. Over-approximates (a bracket inside a plain scalar counts), which
 * only matters for files that hold 64 unquoted brackets in a row.
 */
export function flowNestingProblem(text: string, position: (offset: number) => SourceLocation): Problem | undefined {
  // From one character that matters to the next, found by the regular expression engine: a
  // loop over every character costs 10-30 ms on a 350 KB file in a fresh process.
  const notable = /[[\]{}"'#]/g;
  let depth = 0;
  // `test` rather than `exec`: no match object per character found (the one found is just before `lastIndex`).
  while (notable.test(text)) {
    const i = notable.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_NESTING) return problem('nesting_too_deep', nestingMessage, position(i));
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth -= 1;
    } else if ((c === 0x22 || c === 0x27) && opensToken(text, i)) {
      notable.lastIndex = endOfQuoted(text, i) + 1;
    } else if (c === 0x23 && opensToken(text, i)) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      notable.lastIndex = end + 1;
    }
  }
  return undefined;
}

/** A quote or `#` starts a quoted scalar or a comment only at the start of a token. */
function opensToken(text: string, i: number): boolean {
  if (i === 0) return true;
  const before = text[i - 1]!;
  return before === ' ' || before === '\t' || before === '\n' || before === '\r' || before === '[' || before === '{' || before === ',' || before === ':';
}

/** What ends or escapes in a double-quoted scalar (one object: `endOfQuoted` sets its `lastIndex`). */
const DOUBLE_QUOTED_STOP = /["\\]/g;

function endOfQuoted(text: string, start: number): number {
  if (text.charCodeAt(start) === 0x27) {
    // Single quotes: '' is a quote inside.
    for (let i = text.indexOf("'", start + 1); i >= 0; i = text.indexOf("'", i + 2)) {
      if (text.charCodeAt(i + 1) !== 0x27) return i;
    }
    return text.length;
  }
  // Double quotes: a backslash escapes the next character.
  const stop = DOUBLE_QUOTED_STOP;
  stop.lastIndex = start + 1;
  while (stop.test(text)) {
    const i = stop.lastIndex - 1;
    if (text.charCodeAt(i) === 0x22) return i;
    stop.lastIndex = i + 2;
  }
  return text.length;
}

/** The first node nested deeper than `MAX_NESTING` collections in a composed document. */
export function nestingProblem(doc: Document, position: (offset: number) => SourceLocation): Problem | undefined {
  const { isCollection, isPair } = yaml();
  const stack: [unknown, number][] = [[doc.contents, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (!isCollection(node)) continue;
    if (depth > MAX_NESTING) return problem('nesting_too_deep', nestingMessage, position((node as Node).range?.[0] ?? 0));
    for (const item of node.items) {
      if (isPair(item)) stack.push([item.value, depth + 1]);
      else stack.push([item, depth + 1]);
    }
  }
  return undefined;
}

/** The depth of a plain value's collections (iterative: values can be deep). */
export function valueDepth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) max = depth;
    if (max > MAX_NESTING) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return max;
}

/**
 * The problem of a document whose aliases expand too far, at the first alias of an anchor
 * that holds aliases itself (where the expansion multiplies), or at its first alias.
 */
export function aliasProblem(doc: Document, position: (offset: number) => SourceLocation): Problem {
  const { isMap, isSeq, visit } = yaml();
  const anchorsWithAliases = new Set<string>();
  visit(doc, {
    Node(_, node) {
      if (node.anchor && (isMap(node) || isSeq(node))) {
        let holds = false;
        visit(node, { Alias: () => ((holds = true), visit.BREAK) });
        if (holds) anchorsWithAliases.add(node.anchor);
      }
    },
  });
  let first: number | undefined;
  let multiplying: number | undefined;
  visit(doc, {
    Alias(_, alias) {
      const at = alias.range?.[0] ?? 0;
      first ??= at;
      if (anchorsWithAliases.has(alias.source)) {
        multiplying = at;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return problem(
    'alias_limit',
    `aliases expand to more than ${MAX_ALIAS_COUNT} copies (a "billion laughs" pattern); write the values out or use fewer aliases of aliases`,
    position(multiplying ?? first ?? 0),
  );
}

/** Whether `toJS` failed because of the alias limit. */
export const isAliasLimitError = (error: unknown) => error instanceof ReferenceError && /alias count/i.test(error.message);

/** Whether `toJS` failed on an alias whose anchor is not defined before it in the document. */
export const isUnresolvedAliasError = (error: unknown) => error instanceof ReferenceError && /unresolved alias/i.test(error.message);

/**
 * The problem of a document with an alias (`*name`) that no earlier anchor of the same document
 * defines, at that alias. YAML anchors never reach across `---`.
 */
export function unresolvedAliasProblem(doc: Document, position: (offset: number) => SourceLocation): Problem {
  const { visit } = yaml();
  const defined = new Set<string>();
  let at: { offset: number; source: string } | undefined;
  visit(doc, {
    Node(_, node) {
      if (node.anchor) defined.add(node.anchor);
    },
    Alias(_, alias) {
      if (defined.has(alias.source)) return undefined;
      at = { offset: alias.range?.[0] ?? 0, source: alias.source };
      return visit.BREAK;
    },
  });
  return problem(
    'yaml_syntax',
    `invalid YAML: alias *${at?.source ?? ''} names no anchor defined before it in this document (anchors do not reach across ---); define &${at?.source ?? 'name'} first, or write the value out`,
    position(at?.offset ?? 0),
  );
}
