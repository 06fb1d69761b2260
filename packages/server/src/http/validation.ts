/**
 * Request validation against the JSON Schemas of `@gatehouse/schemas`.
 *
 * Bodies are validated strictly: no type coercion, unknown fields rejected (never silently
 * removed), no defaults injected, so that a wrong type is a 400 as it is on the service.
 * Query strings arrive as text, so they are coerced ("10" -> 10) but are otherwise as strict.
 * `describeValidationError` turns ajv's first error into a stable code and a sentence naming
 * the field.
 */
import AjvModule, { type ErrorObject, type KeywordDefinition } from 'ajv';
import { customKeywords } from '@gatehouse/schemas';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError, type ErrorCode } from '../errors.js';
import { compileCache } from './compiled-on-first-use.js';

const Ajv = AjvModule.default;

function makeAjv(coerceTypes: boolean) {
  const ajv = new Ajv({
    coerceTypes,
    removeAdditional: false,
    useDefaults: false,
    allErrors: false,
    verbose: true,
    strict: false,
  });
  for (const keyword of customKeywords) ajv.addKeyword(keyword as unknown as KeywordDefinition);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

type Validator = ReturnType<FastifySchemaCompiler<object>>;

/**
 * Validators by request part and schema text, shared by every app of the process (compiling
 * was some 70% of `buildApp`, and tests build hundreds of apps) and compiled at their first
 * use (compiled-on-first-use.ts). A validator keeps no state between calls but `errors`, which
 * fastify reads at once, as within one app.
 */
const validators = compileCache<Validator>();

/**
 * Fastify hands a validator it knows as ajv's (by its `schemaEnv`) the request as the value's
 * parent, so that ajv may replace a coerced root value; the first-use wrapper is not known so
 * and gets the value alone. Nothing differs: every request part's schema has an object at its
 * root, whose fields ajv coerces in place, and bodies are never coerced.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return validators(`${ajv === bodyAjv ? 'body' : 'text'} ${JSON.stringify(schema)}`, () => ajv.compile(withStringLimit(schema)));
};

/**
 * The longest string a field accepts when its schema names no limit of its own (labels, header
 * values, user agent patterns, module fields): 64 KiB, as the bodies and traffic policy values
 * that do name one. The 1 MiB body limit alone would let one value hold nearly all of it.
 */
const DEFAULT_STRING_MAX = 64 * 1024;

/** A copy of `schema` in which every string without a `maxLength` (nor enum, const) has `DEFAULT_STRING_MAX`. */
function withStringLimit<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withStringLimit) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, withStringLimit(value)])) as Record<string, unknown>;
  const isString = copy.type === 'string' || (Array.isArray(copy.type) && copy.type.includes('string'));
  if (isString && copy.maxLength === undefined && copy.enum === undefined && copy.const === undefined) copy.maxLength = DEFAULT_STRING_MAX;
  return copy as T;
}

/** JSON pointer `/a/b/0` -> `a.b[0]`, the field name users see in messages. */
export function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

/** Converts ajv's first error for a request part into the API error to answer with. */
export function describeValidationError(error: ErrorObject, part: string): ApiError {
  const inQuery = part === 'querystring';
  const params = error.params as Record<string, unknown>;
  const at = (child?: string) => fieldName(error.instancePath, child);
  const fail = (code: ErrorCode, field: string, message: string) => new ApiError(code, message, { field, ...(inQuery ? { location: 'query' } : {}) });

  switch (error.keyword) {
    case 'additionalProperties': {
      const field = at(String(params.additionalProperty));
      return inQuery
        ? fail('unknown_query_parameter', field, `Unknown query parameter '${field}'.`)
        : fail('unknown_field', field, `Unknown field '${field}'; remove it or check its spelling.`);
    }
    case 'required': {
      const field = at(String(params.missingProperty));
      return fail('missing_field', field, `Field '${field}' is required.`);
    }
    case 'minProperties':
      return fail('invalid_value', at(), `Field '${at()}' must have at least ${String(params.limit)} entries.`);
    case 'type': {
      if (error.instancePath === '' && !inQuery) return fail('missing_body', '', 'The body must be a JSON object.');
      const field = at();
      return inQuery
        ? fail('invalid_query_parameter', field, `Query parameter '${field}' must be ${String(params.type)}.`)
        : fail('invalid_type', field, `Field '${field}' must be ${String(params.type)}.`);
    }
    case 'maxBytes':
      return fail('invalid_value', at(), `Field '${at()}' is longer than ${error.schema as number} bytes of UTF-8.`);
    case 'enum':
      return fail(
        inQuery ? 'invalid_query_parameter' : 'invalid_value',
        at(),
        `Field '${at()}' must be one of: ${(params.allowedValues as unknown[]).join(', ')}.`,
      );
    default:
      return fail(
        inQuery ? 'invalid_query_parameter' : 'invalid_value',
        at(),
        `${inQuery ? 'Query parameter' : 'Field'} '${at()}' ${error.message ?? 'is invalid'}.`,
      );
  }
}
