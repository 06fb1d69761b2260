/**
 * The project file, `gatehouse.yaml` at a repository's root: where the base manifests are, and
 * the environments (staging, production, ...) that apply them to their own targets, each with
 * its variables and overlays. Paths are relative to the file's directory.
 *
 * The file is open to growth by design: a new concern (another issue's `policies:` list, for
 * one) is a new optional top-level property here, and the schema stays strict so that a typo
 * (`enviroments:`) is an error rather than silently ignored.
 */
import { Type, type Static } from '@sinclair/typebox';
import { IgnorePath } from './manifests/common.js';

/** `${env:NAME}` exactly: where a value must come from the environment (a key, never in git). */
const ENV_ONLY = '^\\$\\{env:[A-Za-z_][A-Za-z0-9_]*\\}$';

export const ProjectEnvironmentName = Type.String({
  pattern: '^(?!all$)[a-z0-9][a-z0-9_-]{0,62}$',
  description: 'lower-case letters, digits, - and _ (at most 63); "all" is reserved for plan/drift --env all',
});

export const ProjectEnvironment = Type.Object(
  {
    stack: Type.Optional(Type.String({ minLength: 1, description: 'ownership scope of this environment (default: the --stack default); may be ${env:NAME}' })),
    api_url: Type.Optional(
      Type.String({ minLength: 1, description: "base URL of this environment's management API, usually ${env:NAME}; without it, the embedded default" }),
    ),
    api_key: Type.Optional(Type.String({ pattern: ENV_ONLY, description: 'the API key as ${env:NAME}: a key is never written in the repository' })),
    vars: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.Unknown(), {
        additionalProperties: false,
        description: 'values of ${var:NAME} in the manifests: any YAML value; a string that is exactly ${var:NAME} takes its type',
      }),
    ),
    overlays: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'files or directories of overlay documents, applied in order after the base manifests' }),
    ),
  },
  { additionalProperties: false, description: 'one target of the manifests: its API, stack, variables and overlays' },
);

export const ProjectFile = Type.Object(
  {
    manifests: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description: 'files or directories of the base manifests, relative to this file (the default PATHs of every command)',
    }),
    environments: Type.Optional(
      Type.Record(ProjectEnvironmentName, ProjectEnvironment, {
        additionalProperties: false,
        description: 'the environments, by name; choose one with --env NAME or GATEHOUSE_ENV',
      }),
    ),

    ignore: Type.Optional(
      Type.Array(
        Type.Object(
          {
            kind: Type.String({ minLength: 1, description: 'manifest kind, or a glob of kinds (*Edge, *)' }),
            paths: Type.Array(IgnorePath, { minItems: 1, description: 'field paths of the spec, as in lifecycle.ignore_changes' }),
          },
          { additionalProperties: false, description: 'fields that plan, apply and drift leave alone in every object of the kinds' },
        ),
        { description: 'project-wide ignore rules: fields that other systems own, by kind (glob) and field path' },
      ),
    ),
    variables: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
        Type.Object(
          {
            env: Type.Optional(
              Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'the environment variable read for ${env:NAME} (default: NAME)' }),
            ),
            secret: Type.Optional(Type.Boolean({ description: 'false shows its value in plans, reports and comments; default true: (sensitive: env NAME)' })),
          },
          { additionalProperties: false },
        ),
        {
          additionalProperties: false,
          description:
            'the ${env:NAME} variables of the manifests: values from the environment are secret unless declared secret: false here (the API key can never be used)',
        },
      ),
    ),
    exclude: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'globs of files under the manifest paths that belong to other tools (k8s/**, **/kustomization.yaml), relative to this file: not read; every other YAML document there must be a gatehouse manifest',
      }),
    ),
    policies: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'files or directories of policy rules (CEL), relative to this file, checked by validate and plan besides policies/ and --policy',
      }),
    ),
  },
  { additionalProperties: false, title: 'gatehouse project file', description: 'gatehouse.yaml: base manifests and environments' },
);
export type ProjectFile = Static<typeof ProjectFile>;
