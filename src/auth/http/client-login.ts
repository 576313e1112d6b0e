// POST (and GET) /accounts/ClientLogin, also under /api/greader.php: the Google Reader login that
// most reader apps use. Answers text/plain "SID=…\nLSID=null\nAuth=<token>\n" (apps read Auth).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../runtime/app.ts';
import { checkLogin } from '../login.ts';
import { issueClientLoginToken } from '../tokens.ts';
import { paramsFromRequest } from '../../http/params.ts';
import { textError, type ApiErrorShape } from '../../http/error-shape.ts';
import { StoreUnavailableError, STORE_UNAVAILABLE } from '../../store/open-store.ts';

export const CLIENT_LOGIN_PATHS = ['/accounts/ClientLogin', '/api/greader.php/accounts/ClientLogin'];

/** Errors of ClientLogin, and of whatever else is asked for beside it: `Error=…\nInfo=…\n`. */
export const clientLoginErrors: ApiErrorShape = {
  prefixes: ['/accounts', '/api/greader.php/accounts'],
  shape: (status, message) => textError(`Error=${status === 404 ? 'NotFound' : 'BadRequest'}\nInfo=${message}\n`),
  endpointHint: `ClientLogin is POST ${CLIENT_LOGIN_PATHS.join(' or ')}`,
};

export async function clientLoginRoutes(server: FastifyInstance, opts: { app: App }): Promise<void> {
  const { app } = opts;
  server.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    // The database or the Redis that login throttles count in is down or hung: 503 (retry soon),
    // as the Reader API answers, not a 500 that reads like a bug.
    if (err instanceof StoreUnavailableError) {
      app.log.error({ err }, 'ClientLogin: a store is unavailable');
      return reply
        .code(503)
        .header('Retry-After', '5')
        .type('text/plain; charset=utf-8')
        .send(`Error=ServiceUnavailable\nInfo=${STORE_UNAVAILABLE}\n`);
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) app.log.error({ err }, 'ClientLogin failed');
    return reply
      .code(status)
      .type('text/plain; charset=utf-8')
      .send(
        `Error=${status === 500 ? 'ServiceUnavailable' : 'BadRequest'}\nInfo=${status === 500 ? 'internal error; try again later' : err.message.replace(/\s+/g, ' ')}\n`,
      );
  });
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = paramsFromRequest(req.url, req.body, { query: true, body: true });
    const email = p.get('Email')?.trim();
    const passwd = p.get('Passwd');
    reply.type('text/plain; charset=utf-8').header('Cache-Control', 'no-store');
    if (!email || !passwd) {
      return reply
        .code(400)
        .send(
          `Error=BadAuthentication\nInfo=${!email ? 'Email' : 'Passwd'} is missing: send Email (the username) and Passwd, as query parameters or a form body\n`,
        );
    }
    const login = await checkLogin(app, email, passwd, req.ip);
    if (!login.ok && login.reason === 'throttled') {
      return reply
        .code(429)
        .header('Retry-After', String(login.retryAfterSeconds))
        .send(`Error=TooManyRequests\nInfo=too many failed logins; retry in ${login.retryAfterSeconds} s\n`);
    }
    if (!login.ok) return reply.code(401).send('Error=BadAuthentication\n');
    const label =
      `ClientLogin ${(p.get('client') ?? p.get('service') ?? req.headers['user-agent'] ?? '').slice(0, 120)}`.trim();
    const { token } = await issueClientLoginToken(app, login.user.id, label);
    return reply.send(`SID=${token}\nLSID=null\nAuth=${token}\n`);
  };
  for (const path of CLIENT_LOGIN_PATHS) {
    server.post(path, handler);
    server.get(path, handler);
  }
}
