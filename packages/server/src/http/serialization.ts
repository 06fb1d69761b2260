/**
 * Response serializers: fast-json-stringify's, as Fastify's default compiler makes them (the
 * server adds no shared schemas, so a route's schema is all it needs), shared by every app of
 * the process by schema text and compiled at their first use (compiled-on-first-use.ts).
 */
import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { compileCache } from './compiled-on-first-use.js';

type Serializer = (data: unknown) => string;

const serializers = compileCache<Serializer>();

export const serializerCompiler: FastifySerializerCompiler<object> = ({ schema }) =>
  serializers(JSON.stringify(schema), () => fastJsonStringify(schema) as Serializer);
