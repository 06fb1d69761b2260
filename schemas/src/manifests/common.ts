/**
 * Building blocks of gatehouse manifest documents (`kind`, `name`, `spec`, plus the
 * document-level `adopt` and `lifecycle` fields) shared by every manifest kind.
 *
 * A reference to another object is either the `name` of a manifest of the right kind or
 * `{id: "<id>"}` for an object gatehouse does not manage. Any string may be `${env:NAME}`;
 * the engine substitutes it before validating values.
 */
import { Type, type TSchema } from '@sinclair/typebox';

/**
 * A manifest name: what plans print and the ownership marker records. No whitespace, no slash
 * (children's names are `<parent>/<key>`), no control or bidirectional control character (a
 * name that reads as another on a reviewer's screen), and not `.` or `..`.
 */
export const ManifestName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^(?!\\.\\.?$)[^\\s/\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]+$',
  description: 'unique per kind; the handle other manifests use to reference this object (no spaces, slashes or control characters; not . or ..)',
});

/** A reference: a manifest name, or `{id}` of an object that gatehouse does not manage. */
export const Reference = Type.Union(
  [
    Type.String({ minLength: 1, description: 'name of a manifest of the referenced kind' }),
    Type.Object({ id: Type.String({ minLength: 1, description: 'id of an object gatehouse does not manage' }) }, { additionalProperties: false }),
  ],
  { description: 'the name of a manifest of the right kind, or {id: "<id>"} for an unmanaged object' },
);

export const References = Type.Array(Reference, { minItems: 1, description: 'references: names or {id}; at least one' });

/**
 * A field path that plan, apply and drift leave alone (`description`, `routes[*].circuit_breaker`,
 * `labels.team`): dot-separated field names, `[*]` (or `.*`) for every element of a list and every
 * key of a map, `["a.b"]` for a map key holding dots. The engine checks that it can match a field
 * of the kind (plan/ignore-path.ts, load/ignore-paths.ts).
 */
export const IgnorePath = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'a field path of the spec: names separated by dots, [*] for every element of a list or key of a map (routes[*].circuit_breaker)',
});

export const Lifecycle = Type.Object(
  {
    prevent_destroy: Type.Optional(Type.Boolean({ description: 'apply refuses to delete or replace this object while true' })),
    ignore_changes: Type.Optional(
      Type.Array(IgnorePath, {
        description:
          "fields of the spec that others own: a difference there is never a change or drift, and apply never writes them on an update (a create sends the manifest's value)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const Adopt = Type.String({
  minLength: 1,
  description:
    'id of an existing live object that this manifest takes over (it is updated in place and marked as owned by this stack); written by `gatehouse export --all`',
});

/** A manifest document of `kind` whose `spec` follows `spec`. */
export function ManifestDocument<K extends string, S extends TSchema>(kind: K, spec: S, description: string) {
  return Type.Object(
    {
      kind: Type.Literal(kind),
      name: ManifestName,
      adopt: Type.Optional(Adopt),
      lifecycle: Type.Optional(Lifecycle),
      spec,
    },
    { additionalProperties: false, title: `${kind} manifest`, description },
  );
}
