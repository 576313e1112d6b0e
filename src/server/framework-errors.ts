// Errors raised before a route runs — an unknown path or method, a URL that does not decode, a
// path parameter over the router's limit, a request line or headers too large for Node's parser —
// are answered in the documented error shape of the API the path belongs to, instead of Fastify's
// own JSON or plain text (which no client of these APIs can read). Errors inside a route go
// through each plugin's error handler. Each API declares its prefixes and shape
// (src/http/error-shape.ts); the server builds these handlers from the APIs it mounts.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { allowedMethods, methodMessage } from '../http/allowed-methods.ts';
import type { ApiErrorShape, FallbackApiErrorShape, ShapedError } from '../http/error-shape.ts';

/** Longest path parameter the router accepts (async job ids are 36-character UUIDs). */
export const MAX_PARAM_LENGTH = 256;

const under = (path: string, prefix: string) =>
  path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

const preview = (path: string) => (path.length > 80 ? `${path.slice(0, 80)}…` : path);

export interface ErrorHandlers {
  /**
   * The server-wide fallback for paths no plugin answers (the Reader API and the web API answer
   * their own unknown paths inside their prefixes). A known path asked with the wrong method is a
   * 405 with `Allow`, except on the fallback API, which answers 404 in its own words (the chat
   * API names the right method, as Perplexity's API does).
   */
  notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** Fastify's `frameworkErrors`: bad URL encoding (400) and over-long path parameters (414). */
  frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void;
  /**
   * Fastify's `clientErrorHandler`: Node's parser refused the request (headers over 16 KiB, a
   * broken request line, a timeout). The path is read from the start of what arrived, when it can be.
   */
  clientErrorHandler(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void;
}

/**
 * The handlers for a server on which `apis` are mounted, matched in this order against a path's
 * prefixes, and `fallback` takes every path none of them claims.
 */
export function errorHandlers(apis: readonly ApiErrorShape[], fallback: FallbackApiErrorShape): ErrorHandlers {
  const apiOfPath = (path: string): ApiErrorShape =>
    apis.find((a) => a.prefixes.some((p) => under(path, p))) ?? fallback;
  /** The error body of the API that `path` falls under. */
  const shapeError = (path: string, status: number, message: string): ShapedError =>
    apiOfPath(path).shape(status, message.replace(/[\r\n]+/g, ' '));

  return {
    notFoundHandler(request, reply) {
      const path = request.url.split('?')[0] ?? '/';
      const api = apiOfPath(path);
      if (api === fallback) {
        const shaped = shapeError(path, 404, fallback.notFoundMessage(request.method, path));
        return reply.code(404).type(shaped.contentType).send(shaped.body);
      }
      const allowed = allowedMethods(request, path);
      const [status, message] = allowed.length
        ? [405, methodMessage(path, allowed, request.method)]
        : [404, `unknown endpoint ${request.method} ${preview(path)}: ${api.endpointHint}`];
      const shaped = shapeError(path, status, message);
      if (allowed.length) void reply.header('allow', allowed.join(', '));
      for (const [name, value] of Object.entries(api.notFoundHeaders ?? {})) void reply.header(name, value);
      return reply.code(status).type(shaped.contentType).send(shaped.body);
    },

    frameworkErrors(error, request, reply) {
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
    },

    clientErrorHandler(err, socket) {
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
    },
  };
}
