/**
 * Problems: what is wrong with a set of manifests, as values. Every problem has a code from
 * the one table below, a message that says what is wrong and what to do, and (nearly always)
 * the file:line:col it is about. Steps collect problems instead of throwing, so that a run
 * reports all of them together.
 */
import { compareLocations, type SourceLocation } from './source.js';

/** The central table of problem codes: code -> what it means. */
export const PROBLEM_CODES = {
  path_unreadable: 'a path given on the command line cannot be read',
  no_manifests: 'no *.yaml or *.yml file, or only files that hold no document, under the given paths',
  yaml_syntax: 'a file is not valid YAML',
  not_utf8: 'a file holds bytes that are not UTF-8',
  invalid_unicode: 'a string (a value or a key) that is not Unicode text: a lone surrogate written as an escape (\\ud800)',
  file_too_large: 'a manifest file is larger than --max-file-size (default 10 MiB)',
  nesting_too_deep: 'YAML collections nested deeper than 64',
  alias_limit: 'YAML aliases that expand too far (more than 100 copies)',
  symlink_loop: 'a symbolic link that leads back into a directory above it (a warning: not followed again)',
  document_shape: 'a document is not a mapping with kind, name and spec',
  unknown_kind: 'kind is not one of the manifest kinds',
  unknown_field: 'a field that the kind does not have',
  missing_field: 'a required field is absent',
  wrong_type: 'a value of the wrong type',
  invalid_value: 'a value outside what the schema allows (enum, range, length, pattern)',
  env_missing: 'a ${env:NAME} variable is not set',
  env_credential:
    "a ${env:NAME} that reads the API key gatehouse connects with (GATEHOUSE_API_KEY, an environment's api_key variable, or the same value): never allowed in a manifest",
  env_secret_identity:
    'a name, natural key or adopt id that comes from a secret ${env:NAME}: names are printed in every plan and recorded in the ownership marker',
  var_unknown: 'a ${var:NAME} that the environment does not declare (or no environment is chosen)',
  var_unused: 'a variable of an environment that no manifest uses',
  var_wrong_type: 'a ${var:NAME} whose value has the wrong type for the field it fills',
  unknown_placeholder: 'a ${...} or $NAME that is neither ${env:NAME} nor ${var:NAME} (escape a literal as $${...})',
  overlay_invalid: 'an overlay document that is not kind and name plus a merge, a patch: list or delete: true',
  overlay_target_missing: 'an overlay deletes or patches an object that no base manifest declares',
  overlay_patch_failed: 'an RFC 6902 operation of an overlay that cannot be applied',
  project_invalid: 'gatehouse.yaml does not follow its schema or names a path that cannot be used',
  ignore_path_invalid: 'an ignore path (lifecycle.ignore_changes, gatehouse.yaml ignore:) that is malformed or can match no field of its kind',
  duplicate_name: 'two manifests of one kind share a name',
  reference_missing: 'a reference names no manifest of the expected kind',
  reference_wrong_kind: 'a reference names a manifest of another kind',
  reference_id_missing: 'an {id: ...} reference names no live object (checked against the objects read at plan time)',
  reference_id_wrong_kind: 'an {id: ...} reference names a live object of another kind',
  reference_cycle: 'references form a cycle',
  cidr_invalid: 'a CIDR that the service refuses (malformed, bare address, not canonical)',
  duplicate_cidr: 'a CIDR appears twice in one policy',
  hostport_invalid: 'a hostport that is not hostname:port with port 1..65535 (443 for HTTPS)',
  duplicate_hostport: 'a hostport is used twice',
  duplicate_route: 'two routes of one edge have the same match_type and match',
  route_match_invalid: 'a route match that the service refuses',
  duplicate_restriction_type: 'two IP restrictions of one type',
  module_invalid: 'a module configuration that the service refuses',
  metadata_too_long: 'metadata plus the ownership marker exceeds 4096 bytes',
  adoption_required: 'a live object that this stack does not own holds a unique key a manifest claims',
  owned_by_other_stack: 'a manifest would duplicate or take over an object another stack owns (move it with --from-stack, or rename)',
  from_stack_empty: '--from-stack names a stack that owns no live object (a warning: nothing moves)',
  bot_user_name_cycle: 'bot users renamed so that they exchange names, which no order of renames can do (bot user names are unique)',
  kind_unreadable: "the manifests declare an object of a kind the account cannot list (404: the API does not serve it; 403: the account's plan lacks it)",
  adopt_wrong_kind: 'adopt names a live object of another kind or one adopted twice',
  ca_pem_invalid: 'a certificate authority PEM that is not one or more valid X.509 certificates',
  last_child_in_use: 'the plan would delete every rule of a policy that a dashboard IP restriction uses (the service refuses the last)',
  event_source_invalid: 'an event subscription source with an unknown type, a field the type lacks, or a filter the service refuses',
  policy_invalid: 'a policy file that does not follow its schema (a list of rules with name, kind, require...)',
  policy_expression:
    'a policy expression that is not valid CEL, names a field its kind does not have, is not a condition, or costs too much (too large, comprehensions nested too deep)',
  policy_budget: 'a policy rule that ran past its time budget (per object or per run) and was stopped',
} as const;
export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface Problem {
  code: string;
  /** What is wrong and what to do. Never contains a secret. */
  message: string;
  at?: SourceLocation;
}

export const problem = (code: ProblemCode, message: string, at?: SourceLocation): Problem => (at ? { code, message, at } : { code, message });

/** Thrown by `computePlan` when the manifests are not valid; carries every problem of the run. */
export class ManifestProblems extends Error {
  constructor(readonly problems: Problem[]) {
    super(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the manifests:\n` +
        problems.map((p) => `  ${p.at ? `${p.at.file}:${p.at.line}:${p.at.col}: ` : ''}${p.message}`).join('\n'),
    );
    this.name = 'ManifestProblems';
  }
}

/** Problems in file, line, column order (problems without a location last). */
export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => compareLocations(a.at, b.at));
}
