// The errors of the endpoints that answer in plain text rather than one of the JSON APIs: the
// favicons (/icons) and the WebSub callbacks (/websub). Errors raised before their routes run get
// the same shape in src/server/framework-errors.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The error handler of the plain-text endpoints (favicons, WebSub callbacks): the status of the
 * error (`statusOf` for the domain's own errors) and its message as text; a 5xx is logged and
 * answered without its details.
 */
export function plainTextErrorHandler(
  log: { error(obj: object, msg: string): void },
  what: string,
  statusOf: (err: Error) => number | undefined = () => undefined,
) {
  return (err: Error & { statusCode?: number }, _req: FastifyRequest, reply: FastifyReply) => {
    const status = statusOf(err) ?? (err.statusCode && err.statusCode < 500 ? err.statusCode : 500);
    if (status >= 500) log.error({ err }, `${what} failed`);
    return (
      reply
        .code(status)
        .type('text/plain; charset=utf-8')
        // The message may quote the request: never let a browser read it as HTML.
        .header('x-content-type-options', 'nosniff')
        .send(status >= 500 ? `internal error: ${what} failed (see the server log)` : err.message)
    );
  };
}
