// The HTTP edge of the Reader API: every handler is wrapped by `endpoint()`, which parses the
// merged parameters, authenticates, enforces the method, the write scope and the optional `T`
// token, and turns a ReaderError (or the library's LibraryError) into `Error=<what to fix>` text. Handlers stay one-liners over the
// service modules.
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { App } from '../runtime/app.ts';
import { authenticate, checkWriteToken, hasScope, type Authenticated } from '../auth/authenticate.ts';
import { LibraryError } from '../library/errors.ts';
import { StoreUnavailableError, STORE_UNAVAILABLE } from '../store/open-store.ts';
import { paramsFromRequest, type Params } from '../http/params.ts';

export interface ReaderContext {
  app: App;
  auth: Authenticated;
  userId: number;
  params: Params;
  req: FastifyRequest;
  reply: FastifyReply;
}

export type EndpointKind = 'read' | 'write';

/** `afterSend`: called once the response is sent or the connection is gone (a reused buffer is free again). */
type Result = string | { json: string | Buffer; afterSend?: () => void } | { text: string; type: string } | void;

export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): FastifyReply {
  // One line: clients show the text after "Error=" as is.
  return reply
    .code(status)
    .headers(headers)
    .type('text/plain; charset=utf-8')
    .send(`Error=${message.replace(/[\r\n]+/g, ' ')}`);
}

export function sendUnauthorized(reply: FastifyReply, message: string): FastifyReply {
  return sendError(reply, 401, message, {
    'X-Reader-Google-Bad-Token': 'true',
    'WWW-Authenticate': 'GoogleLogin realm="tidings"',
  });
}

/**
 * Wraps a handler: `read` endpoints answer GET and POST, `write` endpoints POST only (405
 * otherwise). A handler returns a JSON string as `{ json }`, plain text as a string ("OK"), or
 * `{ text, type }` for other bodies.
 */
export function endpoint(
  app: App,
  kind: EndpointKind,
  name: string,
  handler: (ctx: ReaderContext) => Result | Promise<Result>,
): RouteHandlerMethod {
  return async (req, reply) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (kind === 'write' ? method !== 'POST' : method !== 'GET' && method !== 'POST') {
      reply.header('Allow', kind === 'write' ? 'POST' : 'GET, POST');
      return sendError(reply, 405, `${name} takes ${kind === 'write' ? 'POST' : 'GET or POST'}, not ${req.method}`);
    }
    let auth: Authenticated | null;
    try {
      auth = await authenticate(app, req.headers.authorization);
    } catch (e) {
      if (!(e instanceof StoreUnavailableError)) throw e;
      req.log.error({ err: e }, 'database unavailable');
      return sendError(reply, 503, STORE_UNAVAILABLE, { 'Retry-After': '5' });
    }
    if (!auth)
      return sendUnauthorized(
        reply,
        'missing or invalid token: sign in again (Authorization: GoogleLogin auth=<token> or Bearer <token>)',
      );
    const params = paramsFromRequest(req.raw.url ?? req.url, req.body);
    if (kind === 'write') {
      if (!hasScope(auth, 'write')) {
        return sendError(
          reply,
          403,
          'insufficient_scope: this token is read-only; authorize the app again with scope "read write"',
          { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="read write"' },
        );
      }
      if (!(await checkWriteToken(app, auth, params.get('T'))))
        return sendUnauthorized(reply, 'invalid T (write token): fetch a new one from /reader/api/0/token');
    }
    try {
      const out = await handler({ app, auth, userId: auth.userId, params, req, reply });
      if (reply.sent) return reply;
      if (out === undefined) return reply.type('text/plain; charset=utf-8').send('OK');
      if (typeof out === 'string') return reply.type('text/plain; charset=utf-8').send(out);
      if ('json' in out) {
        if (out.afterSend) reply.raw.once('close', out.afterSend);
        return reply.type('application/json; charset=utf-8').send(out.json);
      }
      return reply.type(out.type).send(out.text);
    } catch (e) {
      if (e instanceof LibraryError) return sendError(reply, e.status, e.message);
      if (e instanceof StoreUnavailableError) {
        req.log.error({ err: e }, 'database unavailable');
        return sendError(reply, 503, STORE_UNAVAILABLE, { 'Retry-After': '5' });
      }
      throw e;
    }
  };
}
