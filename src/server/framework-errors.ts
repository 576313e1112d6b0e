// Errors raised before a route runs — an unknown path or method, a URL that does not decode, a
// path parameter over the router's limit, a request line or headers too large for Node's parser —
// are answered in the documented error shape of the API the path belongs to, instead of Fastify's
// own JSON or plain text (which no client of these APIs can read). Errors inside a route go
// through each plugin's error handler.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { allowedMethods, methodMessage } from '../http/allowed-methods.ts';
import { READER_API_PREFIXES } from '../reader-api/plugin.ts';
import { CLIENT_LOGIN_PATHS } from '../auth/http/client-login.ts';
import { ApiError, errorBody, type ApiErrorType } from '../chat-api/errors.ts';
import { FEVER_PATHS } from '../fever/plugin.ts';
import { FEVER_API_VERSION } from '../fever/service.ts';
import { API_PREFIX as WEB_API_PREFIX } from '../web/plugin.ts';
import { ICONS_PREFIX } from './favicon-routes.ts';
import { WEBSUB_PREFIX } from './websub-routes.ts';

/** Longest path parameter the router accepts (async job ids are 36-character UUIDs). */
export const MAX_PARAM_LENGTH = 256;

interface Shaped {
  contentType: string;
  body: string;
}

const under = (path: string, prefix: string) =>
  path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

/** The API a path falls under; everything unclaimed is the chat API's namespace (as on Perplexity). */
export type ApiNamespace = 'reader' | 'client-login' | 'oauth' | 'fever' | 'web' | 'icons' | 'websub' | 'chat';

function apiOfPath(path: string): ApiNamespace {
  // ClientLogin (CLIENT_LOGIN_PATHS) and whatever else is asked for beside it.
  if (under(path, '/accounts') || under(path, '/api/greader.php/accounts')) return 'client-login';
  if (READER_API_PREFIXES.some((p) => under(path, p)) || under(path, '/reader') || under(path, '/api/greader.php'))
    return 'reader';
  if (under(path, '/oauth2')) return 'oauth';
  if (FEVER_PATHS.some((p) => under(path, p))) return 'fever';
  if (under(path, WEB_API_PREFIX)) return 'web';
  if (under(path, ICONS_PREFIX)) return 'icons';
  if (under(path, WEBSUB_PREFIX)) return 'websub';
  return 'chat';
}

/** Status -> the error type of the chat API and code of the web API (same spelling, see src/http/README.md). */
function errorCode(status: number): ApiErrorType {
  return status === 404
    ? 'not_found'
    : status === 405
      ? 'method_not_allowed'
      : status === 413
        ? 'payload_too_large'
        : status === 415
          ? 'unsupported_media_type'
          : 'bad_request';
}

/** The error body of the API that `path` falls under. */
function shapeError(path: string, status: number, message: string): Shaped {
  const oneLine = message.replace(/[\r\n]+/g, ' ');
  const json = (body: unknown) => ({ contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) });
  switch (apiOfPath(path)) {
    case 'reader':
      return { contentType: 'text/plain; charset=utf-8', body: `Error=${oneLine}` };
    case 'client-login':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: `Error=${status === 404 ? 'NotFound' : 'BadRequest'}\nInfo=${oneLine}\n`,
      };
    case 'oauth':
      // RFC 6749 §5.2 has no code for an unknown endpoint or method: invalid_request is the closest.
      return json({ error: 'invalid_request', error_description: oneLine });
    case 'fever':
      return json({ api_version: FEVER_API_VERSION, auth: 0, error: oneLine });
    case 'web':
      return json({ error: { code: errorCode(status), message: oneLine } });
    case 'icons':
    case 'websub':
      return { contentType: 'text/plain; charset=utf-8', body: oneLine };
    case 'chat':
      return json(errorBody(new ApiError(status, errorCode(status), oneLine)));
  }
}

/**
 * The server-wide fallback for paths no plugin answers (the Reader API and the web API answer
 * their own unknown paths inside their prefixes). A known path asked with the wrong method is a
 * 405 with `Allow`, except on the chat API, which answers 404 naming the right method as
 * Perplexity's API does; `chatMessage` words the chat API's answer (it lists its endpoints).
 */
export function notFoundHandler(chatMessage: (method: string, path: string) => string) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const api = apiOfPath(path);
    if (api === 'chat')
      return reply
        .code(404)
        .type('application/json; charset=utf-8')
        .send(shapeError(path, 404, chatMessage(request.method, path)).body);
    const allowed = allowedMethods(request, path);
    const [status, message] = allowed.length
      ? [405, methodMessage(path, allowed, request.method)]
      : [404, `unknown endpoint ${request.method} ${preview(path)}: ${ENDPOINT_HINT[api]}`];
    const shaped = shapeError(path, status, message);
    if (allowed.length) void reply.header('allow', allowed.join(', '));
    if (api === 'oauth') void reply.header('cache-control', 'no-store');
    return reply.code(status).type(shaped.contentType).send(shaped.body);
  };
}

const ENDPOINT_HINT: Record<Exclude<ApiNamespace, 'chat'>, string> = {
  reader: `the Google Reader API is at ${READER_API_PREFIXES.join(' and ')}`,
  'client-login': `ClientLogin is POST ${CLIENT_LOGIN_PATHS.join(' or ')}`,
  oauth: 'the OAuth 2.0 endpoints are GET/POST /oauth2/auth, POST /oauth2/token and POST /oauth2/revoke',
  fever: `the Fever API is GET or POST ${FEVER_PATHS.map((p) => `${p}${p.endsWith('.php') ? '' : '/'}?api`).join(' or ')}`,
  web: `see ${WEB_API_PREFIX}/openapi.json`,
  icons: `favicons are GET ${ICONS_PREFIX}/<feed id>.<signature>, the iconUrl of a subscription`,
  websub: `WebSub callbacks are GET (verification) and POST (content) ${WEBSUB_PREFIX}/<token>, the callback URL Tidings gave the hub`,
};

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
