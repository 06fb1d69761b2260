/**
 * Request bodies as the service takes them: JSON, in UTF-8, and nothing else.
 *
 * Fastify's own JSON parser decodes the body as UTF-8 whatever it holds, so bytes that are not
 * UTF-8 were stored as U+FFFD, a `charset=utf-16` body was read as UTF-8, and a `\ud800`
 * escape (half of a surrogate pair, which no UTF-8 can encode) was stored as it came and made
 * every later answer holding it unreadable to strict JSON readers such as `jq`. Here:
 * - a charset other than UTF-8 is 415 `unsupported_charset`;
 * - bytes that are not UTF-8, or a lone surrogate in a string or a key, are 400
 *   `invalid_encoding` naming the field (`rules[0].description`), as other field errors do;
 * - everything else is Fastify's parser (its prototype-poisoning checks included), so an empty
 *   or malformed body is refused as before.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { fieldName } from './validation.js';

/** What a lone surrogate matches: in a `u` regular expression, a surrogate pair is one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Bodies are JSON only: without this, Fastify's default text/plain parser would hand a
  // string to validation and the client would hear about a type error, not the media type.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    const charset = charsetOf(request.headers['content-type'] ?? '');
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new ApiError('unsupported_charset', `The body's charset is ${charset}; send it as UTF-8 (\`Content-Type: application/json\`).`));
      return;
    }
    if (!isUtf8(bytes)) {
      done(invalidUtf8(bytes));
      return;
    }
    parseJson(request, bytes.toString('utf8'), (error, value) => {
      if (error) {
        done(error);
        return;
      }
      const path = pathOfLoneSurrogate(value);
      if (path === undefined) done(null, value);
      else {
        const field = fieldOf(path);
        done(
          new ApiError('invalid_encoding', `Field '${field}' holds a lone surrogate (half of a \\ud800-\\udfff pair), which is not text; send valid Unicode.`, {
            field,
          }),
        );
      }
    });
  });
}

/** The `charset` parameter of a Content-Type, lowercased; undefined when there is none. */
export function charsetOf(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType)?.[1]?.toLowerCase();
}

/**
 * The error for a body that is not UTF-8, naming the field whose string holds the first bad
 * byte: a lone-surrogate escape put in place of that byte makes the JSON parse (when the byte
 * was inside a string) and marks the string, which `pathOfLoneSurrogate` then finds.
 */
function invalidUtf8(body: Buffer): ApiError {
  const at = firstInvalidByte(body);
  const marked = Buffer.concat([body.subarray(0, at), Buffer.from('\\udfff'), body.subarray(at)]).toString('utf8');
  let path: (string | number)[] | undefined;
  try {
    path = pathOfLoneSurrogate(JSON.parse(marked));
  } catch {
    path = undefined;
  }
  if (path === undefined) return new ApiError('invalid_encoding', `The body is not valid UTF-8 (byte ${at}); send it in UTF-8.`);
  const field = fieldOf(path.map((part) => (typeof part === 'string' ? part.replace('\udfff', '') : part)));
  return new ApiError('invalid_encoding', `Field '${field}' is not valid UTF-8 (byte ${at} of the body); send the body in UTF-8.`, { field });
}

/**
 * The offset of the first byte that makes `body` invalid UTF-8: the end of its longest prefix
 * that a streaming decoder accepts (it allows a sequence cut off at the end, so validity of
 * prefixes only ever goes from true to false, and a binary search finds the edge).
 */
function firstInvalidByte(body: Buffer): number {
  const validPrefix = (length: number): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(0, length), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  let low = 0;
  let high = body.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (validPrefix(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The path to the first string or key that holds a lone surrogate, if any. */
function pathOfLoneSurrogate(value: unknown, path: (string | number)[] = []): (string | number)[] | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = pathOfLoneSurrogate(item, [...path, i]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return [...path, key];
      const found = pathOfLoneSurrogate(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/** A path as the field name messages use (`rules[0].description`), with any lone surrogate shown as U+FFFD. */
function fieldOf(path: (string | number)[]): string {
  const pointer = path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  return fieldName(pointer).replace(/\p{Cs}/gu, '\uFFFD');
}
