/**
 * Errors Node's HTTP parser raises before a request exists (Fastify's `clientErrorHandler`):
 * a request or its headers that did not arrive within `requestTimeout`/`headersTimeout` (408),
 * headers over Node's size limit, such as a URL of several kilobytes (431), and bytes that are
 * not HTTP at all (400). They get the error envelope like every other answer, with a fresh
 * `operation_id`, and the connection is closed (its state is unknown). No credentials can be
 * checked (there are no parsed headers), and the answer says nothing about which URLs exist.
 * A connection already reset or destroyed is left alone, as Fastify's default does.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';

/** The envelope's error for a parser error code. */
function clientErrorOf(error: Error & { code?: string }): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'The request did not arrive in full in time; send the headers and the body without pausing.');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', 'The request line and headers are larger than the server reads (16 KiB); no id or header is that long.');
    default:
      return new ApiError('bad_request', 'The request is not valid HTTP/1.1.');
  }
}

/** Writes the envelope for a parser error on `socket`, then closes it. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const apiError = clientErrorOf(error);
    const operationId = newId('op');
    const body = JSON.stringify(apiError.envelope(operationId));
    socket.write(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `operation-id: ${operationId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
