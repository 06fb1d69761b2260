/**
 * Policies as values: rules loaded from policy files (expressions parsed and type-checked),
 * and the results of evaluating them. A result is what a reviewer reads: which rule, how
 * severe, which object (with the file:line:col it is declared at) and the rule's message.
 */
import type { SourceLocation } from '../source.js';

export type PolicySeverity = 'error' | 'warning';

/** A parsed, type-checked CEL expression of a rule. */
export interface CompiledExpression {
  text: string;
  /** Where the expression is written in its policy file. */
  at: SourceLocation;
  evaluate(context: Record<string, unknown>): unknown;
}

export interface PolicyRule {
  name: string;
  description?: string;
  kind: string;
  severity: PolicySeverity;
  when?: CompiledExpression;
  require: CompiledExpression;
  /** The message: literal text and `{expression}` placeholders. */
  message: (string | CompiledExpression)[];
  /** The rule reads `change`: it is evaluated in plans only (validate has no live state). */
  usesChange: boolean;
  /** Where the rule starts in its policy file. */
  source: SourceLocation;
}

/** One object that does not meet one rule. */
export interface PolicyResult {
  rule: string;
  severity: PolicySeverity;
  /** Address, kind and name of the object, as in plans. */
  address: string;
  kind: string;
  name: string;
  /** The rule's message with its placeholders filled in (secrets masked). */
  message: string;
  /** Where the object is declared; absent for an object the plan deletes. */
  source?: SourceLocation;
  /** Where the rule is written. */
  rule_source: SourceLocation;
}

export const policyErrors = (results: readonly PolicyResult[] | undefined) => (results ?? []).filter((r) => r.severity === 'error');

/**
 * Thrown by a plan before its first request when the manifests alone break a rule of severity
 * error (a rule that does not read `change` fails the same way once live state is read): the
 * plan would fail, so nothing is sent. `results` are every failed rule, warnings included.
 */
export class PolicyFailed extends Error {
  constructor(readonly results: readonly PolicyResult[]) {
    const rules = [...new Set(policyErrors(results).map((r) => r.rule))];
    super(`the manifests break ${rules.length} policy rule${rules.length === 1 ? '' : 's'} (${rules.join(', ')})`);
    this.name = 'PolicyFailed';
  }
}
