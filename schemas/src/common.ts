/**
 * Building blocks shared by every API body and manifest schema.
 *
 * Byte limits (`description` 255 bytes, `metadata` 4096 bytes) use the custom `maxBytes`
 * keyword, counted in UTF-8 bytes as the service does; `maxLength` carries the same number so
 * that editors that do not know `maxBytes` still catch most mistakes. Every validator that
 * consumes these schemas registers `maxBytes` (see `keywords.ts`).
 */
import { Type, type Static, type TNull, type TOptional, type TProperties, type TSchema, type TUnion } from '@sinclair/typebox';

export const DESCRIPTION_MAX_BYTES = 255;
import { METADATA_MAX_BYTES } from './constants.js';

export { METADATA_MAX_BYTES };
export const UINT32_MAX = 4_294_967_295;

/**
 * Text meant for people (descriptions, names): no control character but tab and newline. A
 * value with terminal escapes or NUL would reach every terminal and log that prints it.
 */
export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]*$';
/** Longest name the service keeps (a bot user's). */
export const NAME_MAX_BYTES = 255;
/** Longest free-form body (an http_response backend's, a traffic policy's value): 64 KiB. */
export const BODY_MAX_BYTES = 64 * 1024;

export const Description = Type.String({
  maxLength: DESCRIPTION_MAX_BYTES,
  maxBytes: DESCRIPTION_MAX_BYTES,
  pattern: NO_CONTROL_CHARACTERS,
  description: 'human-readable description, at most 255 bytes of UTF-8, no control characters but tab and newline',
});
export const Metadata = Type.String({
  maxLength: METADATA_MAX_BYTES,
  maxBytes: METADATA_MAX_BYTES,
  description: 'arbitrary machine-readable data, at most 4096 bytes of UTF-8',
});
export const Timestamp = Type.String({ description: 'RFC 3339 timestamp' });
export const Id = Type.String({ minLength: 1, description: 'opaque resource identifier' });
export const Uint32 = Type.Integer({ minimum: 0, maximum: UINT32_MAX });

export const Ref = Type.Object({ id: Type.String(), uri: Type.String() }, { additionalProperties: false, description: 'reference to another resource' });
export type Ref = Static<typeof Ref>;

/** Fields every top-level resource response carries. */
export const resourceBase = {
  id: Type.String(),
  uri: Type.String(),
  created_at: Timestamp,
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
};

/** `?limit=&before_id=` accepted by every list endpoint; anything else is rejected. */
export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    before_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

/** `{ <key>: [...], uri, next_page_uri }`, the envelope of every list response. */
export function listEnvelope<K extends string, T extends TSchema>(key: K, item: T) {
  return Type.Object(
    {
      [key]: Type.Array(item),
      uri: Type.String(),
      next_page_uri: Type.Union([Type.String(), Type.Null()]),
    } as { [P in K]: ReturnType<typeof Type.Array<T>> } & {
      uri: ReturnType<typeof Type.String>;
      next_page_uri: ReturnType<typeof Type.Union<[ReturnType<typeof Type.String>, ReturnType<typeof Type.Null>]>>;
    },
    { additionalProperties: false },
  );
}

/** `:id` path parameter. */
export const IdParams = Type.Object({ id: Type.String() });

/** The error envelope of every failure (see service-behaviour.md). */
export const ErrorBody = Type.Object({
  error_code: Type.String(),
  status_code: Type.Integer(),
  msg: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type ErrorBody = Static<typeof ErrorBody>;

/**
 * A PATCH body: every field optional, unknown fields rejected. A body with no field at all is
 * accepted and changes nothing, as the service answers it (its own documentation sends
 * `PATCH .../sources/{type}` with `{}`). Fields may be passed as they are in the create body;
 * they are all made optional here.
 */
export function UpdateBody<T extends TProperties>(properties: T) {
  return Type.Partial(Type.Object(properties), { additionalProperties: false });
}

/** Object schema that rejects unknown properties, the default for every request body. */
export function Strict<T extends Parameters<typeof Type.Object>[0]>(properties: T, description?: string) {
  return Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
}

/**
 * A string from a fixed set, as `{type: 'string', enum: [...]}` so that validators report
 * "must be one of" and editors complete the values.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A module or object that may be `null` in a response. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A module of an owner (an edge, a route): what a create or PATCH gives, and what a response renders. */
export interface ModuleSchemas {
  input: TSchema;
  output: TSchema;
}

/** The fields an owner's modules add: to its bodies (each optional) and to its response (each `null` when unset). */
export function moduleFields<M extends Record<string, ModuleSchemas>>(modules: M) {
  const entries = Object.entries(modules);
  return {
    inputs: Object.fromEntries(entries.map(([name, module]) => [name, Type.Optional(module.input)])) as { [N in keyof M]: TOptional<M[N]['input']> },
    outputs: Object.fromEntries(entries.map(([name, module]) => [name, Nullable(module.output)])) as { [N in keyof M]: TUnion<[M[N]['output'], TNull]> },
  };
}
