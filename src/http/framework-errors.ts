// Errors raised before any route runs — a URL that does not decode, a path parameter over the
// router's limit, a request line or headers too large for Node's parser — are answered in the
// documented error shape of the API the path belongs to, instead of Fastify's own JSON (which no
// client of either API can read). Errors inside a route go through each plugin's error handler.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { READER_API_PREFIXES } from '../reader-api/plugin.ts';
import { CLIENT_LOGIN_PATHS } from '../auth/http/client-login.ts';
import { ApiError, errorBody, type ApiErrorType } from '../chat-api/errors.ts';

/** Longest path parameter the router accepts (async job ids are 36-character UUIDs). */
export const MAX_PARAM_LENGTH = 256;

interface Shaped {
  contentType: string;
  body: string;
}

/** The error body of the API that `path` falls under. */
function shapeError(path: string, status: number, message: string): Shaped {
  const oneLine = message.replace(/[\r\n]+/g, ' ');
  if (READER_API_PREFIXES.some((p) => path.startsWith(`${p}/`) || path === p)) {
    return { contentType: 'text/plain; charset=utf-8', body: `Error=${oneLine}` };
  }
  if (CLIENT_LOGIN_PATHS.some((p) => path.startsWith(p))) {
    return { contentType: 'text/plain; charset=utf-8', body: `Error=BadRequest\nInfo=${oneLine}\n` };
  }
  if (path.startsWith('/oauth2/')) {
    return {
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ error: 'invalid_request', error_description: oneLine }),
    };
  }
  // Everything else is the chat API's namespace (it also owns the server-wide 404).
  const type: ApiErrorType = status === 404 ? 'not_found' : status === 413 ? 'payload_too_large' : 'bad_request';
  return {
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify(errorBody(new ApiError(status, type, oneLine))),
  };
}

const preview = (path: string) => (path.length > 80 ? `${path.slice(0, 80)}…` : path);

/** Fastify's `frameworkErrors`: bad URL encoding (400) and over-long path parameters (414). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.raw.url?.split('?')[0] ?? '/';
  const [status, message] =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [
          414,
          `A path segment of ${preview(path)} is too long (at most ${MAX_PARAM_LENGTH} characters): check the id in the URL`,
        ]
      : error.code === 'FST_ERR_BAD_URL'
        ? [
            400,
            `The URL path ${preview(path)} is not valid percent-encoding: encode the path as UTF-8 (e.g. with encodeURIComponent)`,
          ]
        : [400, `Bad request: ${error.message}`];
  const shaped = shapeError(path, status, message);
  void reply.code(status).type(shaped.contentType).send(shaped.body);
}

/**
 * Fastify's `clientErrorHandler`: Node's parser refused the request (headers over 16 KiB, a broken
 * request line, a timeout). The path is read from the start of what arrived, when it can be.
 */
export function clientErrorHandler(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive.']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            'The request line and headers are over 16 KiB: shorten the URL (send long parameters in a POST body) or the headers.',
          ]
        : [400, 'The request is not valid HTTP/1.1.'];
  const requestLine = Buffer.isBuffer(err.rawPacket)
    ? err.rawPacket.subarray(0, 2048).toString('latin1').split('\r\n')[0]!
    : '';
  const path = /^[A-Z]+ (\/[^ ?]*)/.exec(requestLine)?.[1] ?? '/';
  const shaped = shapeError(path, status, message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${shaped.contentType}\r\nContent-Length: ${Buffer.byteLength(shaped.body)}\r\nConnection: close\r\n\r\n${shaped.body}`,
    );
  }
  socket.destroy();
}
