/**
 * Limits on what a manifest's YAML may make the `yaml` parser do, as problems at their place
 * rather than a crash, a raw `ReferenceError` or gigabytes of memory:
 * - collections nested deeper than `MAX_NESTING` (no manifest needs more than about ten).
 *   `yaml` has no option for it, and a line of a million `[` costs it seconds and gigabytes
 *   before it gives up; so the parser's own stack of open nodes is watched as the file is read
 *   (`parseWithinNesting`), and reading stops at the first collection too deep;
 * - aliases that expand past `MAX_ALIAS_COUNT` copies ("billion laughs"): `yaml`'s own
 *   `maxAliasCount` stops them, and `aliasProblem` says where;
 * - an alias whose anchor is not defined before it (`unresolvedAliasProblem`).
 */
import { CST, isMap, isSeq, Lexer, Parser, visit, type Document } from 'yaml';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';

const MAX_NESTING = 64;
export const MAX_ALIAS_COUNT = 100;

/** Thrown by `parseWithinNesting` at the first collection nested deeper than `MAX_NESTING`. */
export class NestingTooDeep extends Error {
  constructor(readonly offset: number) {
    super(`collections nested more than ${MAX_NESTING} deep; no manifest needs that, so this file is refused rather than parsed`);
  }
}

/**
 * The CST tokens of `text`, as `new Parser(onNewLine).parse(text)` yields them (fed lexeme by
 * lexeme, as `yaml`'s documentation shows for a parser with its own lexer), throwing
 * `NestingTooDeep` as soon as a collection is opened deeper than `MAX_NESTING`. The parser's
 * `stack` holds the document being read, then each collection open in it (flow or block), then
 * at most a scalar: when a collection on top makes more than `MAX_NESTING`, it is the one too deep.
 */
export function* parseWithinNesting(text: string, onNewLine: (offset: number) => void): Generator<CST.Token, void> {
  // The start of the first line, as `Parser#parse` records it.
  onNewLine(0);
  const parser = new Parser(onNewLine);
  for (const lexeme of new Lexer().lex(text)) {
    yield* parser.next(lexeme);
    const open = parser.stack;
    const top = open[open.length - 1];
    if (open.length > MAX_NESTING + 1 && CST.isCollection(top)) throw new NestingTooDeep(top.offset);
  }
  yield* parser.end();
}

/** Whether `toJS` failed because of the alias limit. */
export const isAliasLimitError = (error: unknown) => error instanceof ReferenceError && /alias count/i.test(error.message);

/** Whether `toJS` failed on an alias whose anchor is not defined before it in the document. */
export const isUnresolvedAliasError = (error: unknown) => error instanceof ReferenceError && /unresolved alias/i.test(error.message);

/**
 * The problem of a document whose aliases expand too far, at the first alias of an anchor
 * that holds aliases itself (where the expansion multiplies), or at its first alias.
 */
export function aliasProblem(doc: Document, position: (offset: number) => SourceLocation): Problem {
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

/**
 * The problem of a document with an alias (`*name`) that no earlier anchor of the same document
 * defines, at that alias. YAML anchors never reach across `---`.
 */
export function unresolvedAliasProblem(doc: Document, position: (offset: number) => SourceLocation): Problem {
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
