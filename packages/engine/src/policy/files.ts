/**
 * Loading policy files: read, check against the policy file schema (`PolicyFile` of
 * @gatehouse/schemas), then parse and type-check every expression against the kind it names
 * (see environment.ts). Every mistake is a problem at its file:line:col: a field the schema
 * lacks, an unknown kind, a CEL syntax error, a field path the kind does not have, a
 * condition that is not a bool, an expression that costs too much (larger than the parser's
 * limits, comprehensions nested deeper than two: `cel-cost.ts` of @gatehouse/schemas), a rule
 * name used twice. Rules come back only when their file
 * has no problem, so a broken policy never silently checks less.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { PolicyRule as RuleDocument } from '@gatehouse/schemas';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';
import { findManifestFiles, readManifestFile, STDIN_PATH } from '../load/files.js';
import { displayPath, parseFile, type LoadedDocument } from '../load/documents.js';
import { celCostProblem, celLimitMessage } from '@gatehouse/schemas/runtime';
import { unknownHasFields } from './cel-types.js';
import { pathOf } from '../identity/env-fields.js';
import { kindEnvironment, loadManifestSchemas, POLICY_KINDS } from './environment.js';
import type { CompiledExpression, PolicyRule } from './model.js';

/**
 * The rule schema's validator, compiled (ajv imported) when the first policy file is read: a
 * plan without policies never pays for ajv or the compilation.
 */
let validateRule: ValidateFunction | undefined;
async function ruleValidator(): Promise<ValidateFunction> {
  if (validateRule) return validateRule;
  const [{ Ajv }, { PolicyRule }] = await Promise.all([import('ajv'), import('@gatehouse/schemas')]);
  return (validateRule = new Ajv({ allErrors: true, strict: false }).compile(PolicyRule));
}

export interface LoadedPolicies {
  rules: PolicyRule[];
  problems: Problem[];
  /** Links that loop back into a directory above them: reported, not followed again. */
  warnings: Problem[];
  /** The policy files read (as given or found), so manifest loading can leave them out. */
  files: string[];
}

/**
 * Policy files under `paths`, found as manifests are (load/files.ts): links to files and
 * directories followed, a loop reported and not followed again, a dangling link or an
 * unreadable path a problem, dot-entries and node_modules not searched. A policy left out
 * silently would check less without a word.
 */
async function policyFiles(paths: readonly string[], problems: Problem[], warnings: Problem[]): Promise<string[]> {
  const named = paths.filter((path) => path !== STDIN_PATH);
  if (named.length < paths.length) {
    problems.push(problem('path_unreadable', `policy rules are read from files: give a policy file or directory, not ${STDIN_PATH} (standard input)`));
  }
  const found = await findManifestFiles(named);
  problems.push(...found.problems);
  warnings.push(...found.warnings);
  return found.files;
}

/** Reads and compiles every rule of the policy files under `paths`. */
export async function loadPolicies(paths: readonly string[]): Promise<LoadedPolicies> {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const files = await policyFiles(paths, problems, warnings);
  const rules: PolicyRule[] = [];
  const names = new Map<string, SourceLocation>();
  const validate = files.length > 0 ? (await Promise.all([ruleValidator(), loadManifestSchemas()]))[0] : undefined;
  for (const file of files) {
    // Checked as a manifest is: its size before it is read, its bytes UTF-8.
    const read = await readManifestFile(file, displayPath(file));
    if ('problem' in read) {
      problems.push(read.problem);
      continue;
    }
    const { text } = read;
    const before = problems.length;
    const { documents, problems: yamlProblems } = parseFile(displayPath(file), text);
    problems.push(...yamlProblems);
    const fileRules: PolicyRule[] = [];
    for (const doc of documents) fileRules.push(...compileDocument(doc, text, problems, validate!));
    if (problems.length > before) continue;
    for (const rule of fileRules) {
      const first = names.get(rule.name);
      if (first) {
        problems.push(
          problem(
            'policy_invalid',
            `policy rule name "${rule.name}" is used twice (first at ${first.file}:${first.line}:${first.col}); rename one`,
            rule.source,
          ),
        );
        continue;
      }
      names.set(rule.name, rule.source);
      rules.push(rule);
    }
  }
  return { rules, problems, warnings, files };
}

/** The rules of one document (the file's list): each checked against the rule schema, then compiled. */
function compileDocument(doc: LoadedDocument, text: string, problems: Problem[], validateRule: ValidateFunction): PolicyRule[] {
  if (!Array.isArray(doc.value)) {
    problems.push(problem('policy_invalid', 'a policy file is a list of rules (each "- name: ..."), as in examples/policies', doc.locate([])));
    return [];
  }
  const rules: PolicyRule[] = [];
  (doc.value as unknown[]).forEach((item, index) => {
    if (!validateRule(item)) {
      for (const error of validateRule.errors ?? []) problems.push(schemaProblem(doc, error, index));
      return;
    }
    const raw = item as RuleDocument;
    const at = (field: string) => doc.locate([index, field]);
    if (!POLICY_KINDS.includes(raw.kind)) {
      problems.push(problem('policy_invalid', `kind must be one of ${POLICY_KINDS.join(', ')}, not ${JSON.stringify(raw.kind)}`, at('kind')));
      return;
    }
    const environments = kindEnvironment(raw.kind);
    // Read `change`? Then the rule is a plan rule (checked with `change` in scope).
    const reads = (source: string) => !environments.validate.check(source).valid && environments.plan.check(source).valid;
    const sources = [raw.when, raw.require, ...placeholders(raw.message ?? '')].filter((s): s is string => s !== undefined);
    const usesChange = sources.some(reads);
    const env = usesChange ? environments.plan : environments.validate;
    const before = problems.length;
    const compile = (source: string, field: string, offset: number, condition: boolean): CompiledExpression => {
      const node = at(field);
      let evaluate: CompiledExpression['evaluate'] = () => undefined;
      try {
        const parsed = env.parse(source);
        const checked = parsed.check();
        const unknown = checked.valid ? unknownHasFields(parsed.ast, environments.types)[0] : undefined;
        const cost = celCostProblem(parsed.ast);
        if (cost) {
          problems.push(expressionProblem(field, source, { message: cost.message, node: { pos: cost.offset } }, text, node, offset));
        } else if (!checked.valid) {
          problems.push(expressionProblem(field, source, checked.error, text, node, offset));
        } else if (unknown) {
          problems.push(expressionProblem(field, source, { message: `No such key: ${unknown.field}`, node: { pos: unknown.pos } }, text, node, offset));
        } else if (condition && checked.type !== 'bool' && checked.type !== 'dyn') {
          problems.push(problem('policy_expression', `${field} must be a condition (bool), but "${source}" is ${checked.type}`, node));
        }
        evaluate = (context) => parsed(context);
      } catch (error) {
        problems.push(expressionProblem(field, source, error, text, node, offset));
      }
      return { text: source, at: node, evaluate };
    };
    const when = raw.when === undefined ? undefined : compile(raw.when, 'when', 0, true);
    const require = compile(raw.require, 'require', 0, true);
    const message =
      raw.message === undefined
        ? [raw.description ?? `does not meet policy rule ${raw.name}`]
        : messageParts(raw.message, (source, offset) => compile(source, 'message', offset, false));
    if (problems.length > before) return;
    rules.push({
      name: raw.name,
      ...(raw.description !== undefined ? { description: raw.description } : {}),
      kind: raw.kind,
      severity: raw.severity ?? 'error',
      ...(when ? { when } : {}),
      require,
      message,
      usesChange,
      source: doc.locate([index]),
    });
  });
  return rules;
}

const PLACEHOLDER = /\{([^{}]+)\}/g;
const placeholders = (message: string) => [...message.matchAll(PLACEHOLDER)].map((m) => m[1]!);

/** `route {route.match} on {edge.name}` -> ['route ', <route.match>, ' on ', <edge.name>]. */
function messageParts(message: string, compile: (source: string, offset: number) => CompiledExpression): (string | CompiledExpression)[] {
  const parts: (string | CompiledExpression)[] = [];
  let last = 0;
  for (const m of message.matchAll(PLACEHOLDER)) {
    if (m.index > last) parts.push(message.slice(last, m.index));
    parts.push(compile(m[1]!, m.index + 1));
    last = m.index + m[0].length;
  }
  if (last < message.length) parts.push(message.slice(last));
  return parts;
}

interface CelError {
  message?: string;
  node?: { pos?: number };
  range?: { start?: number };
}

/**
 * A problem of an expression at the character it is about: the library's first message line
 * (`No such key: oidcc`, `Unknown variable: foo`), at the scalar's position plus the offset.
 */
function expressionProblem(field: string, source: string, error: unknown, text: string, node: SourceLocation, offset: number): Problem {
  const e = (error ?? {}) as CelError;
  const first = celLimitMessage(
    String(e.message ?? error)
      .split('\n')[0]!
      .trim(),
  );
  const position = offset + (e.node?.pos ?? e.range?.start ?? 0);
  const hint = /No such key/.test(first)
    ? "; the field is not in the kind's schema (see schemas/json/manifests)"
    : /Unknown variable/.test(first)
      ? "; rules see the object by its kind's name (route, edge, rule, policy, ...), object, parent, change (plans only) and now"
      : '';
  return problem('policy_expression', `${field}: ${first} in "${source}"${hint}`, positionIn(text, node, position));
}

/**
 * The file position of character `offset` of a scalar written at `at`: one column further for
 * a quoted scalar; in a block scalar (`|`, `>`), on the content lines below it.
 */
function positionIn(text: string, at: SourceLocation, offset: number): SourceLocation {
  const lines = text.split('\n');
  const line = lines[at.line - 1] ?? '';
  const first = line[at.col - 1];
  if (first === '"' || first === "'") return { ...at, col: at.col + 1 + offset };
  if (first === '|' || first === '>') {
    let remaining = offset;
    for (let n = at.line; n < lines.length; n += 1) {
      const content = lines[n]!;
      const indent = content.length - content.trimStart().length;
      const length = content.length - indent + 1;
      if (remaining < length) return { file: at.file, line: n + 1, col: indent + 1 + remaining };
      remaining -= length;
    }
    return at;
  }
  return { ...at, col: at.col + offset };
}

function schemaProblem(doc: LoadedDocument, error: ErrorObject, index: number): Problem {
  const path = [index, ...pathOf(error.instancePath)];
  const params = error.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[] };
  if (error.keyword === 'additionalProperties') {
    return problem(
      'policy_invalid',
      `unknown field "${params.additionalProperty}" in a policy rule; a rule has name, description, kind, when, require, severity and message`,
      doc.locate([...path, params.additionalProperty!], { key: true }),
    );
  }
  if (error.keyword === 'required') return problem('policy_invalid', `a policy rule needs "${params.missingProperty}"`, doc.locate(path));
  if (error.keyword === 'enum') return problem('policy_invalid', `${path.at(-1)} must be one of ${params.allowedValues!.join(', ')}`, doc.locate(path));
  if (path.length === 1 && error.keyword === 'type')
    return problem('policy_invalid', 'a policy rule is a mapping with name, kind, require...', doc.locate(path));
  return problem('policy_invalid', `${path.join('.') || 'the file'} ${error.message ?? 'is invalid'}`, doc.locate(path));
}
