// The Fever API as one encapsulated Fastify plugin at /fever/ (Miniflux's path) and
// /api/fever.php (FreshRSS's), GET or POST. Clients send `api` in the query string and
// `api_key` plus marks in a form body (urlencoded, or multipart from some iOS apps); both are
// merged. Answers are always JSON with HTTP 200 and `auth` 0/1, as Fever did — clients read
// `auth`, not the status — except refused input (400/404 with an `error` that says what to fix).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { App } from '../runtime/app.ts';
import { LoginThrottle } from '../auth/login-throttle.ts';
import { forEachPair, Params } from '../http/params.ts';
import { jsonError, type ApiErrorShape } from '../http/error-shape.ts';
import { authenticateFeverKey } from '../auth/fever-credentials.ts';
import { FEVER_API_VERSION, FeverError, feverResponse } from './service.ts';

export const FEVER_PATHS = ['/fever', '/api/fever.php'];

/** Errors under the Fever paths keep the Fever shape, with `error` saying what to fix. */
export const feverErrors: ApiErrorShape = {
  prefixes: FEVER_PATHS,
  shape: (_status, message) => jsonError({ api_version: FEVER_API_VERSION, auth: 0, error: message }),
  endpointHint: `the Fever API is GET or POST ${FEVER_PATHS.map((p) => `${p}${p.endsWith('.php') ? '' : '/'}?api`).join(' or ')}`,
};
const BODY_LIMIT = 64 * 1024;
/** Wrong keys per minute from one address before it must wait (the key is a fast md5). */
const FAILURES_PER_MINUTE = 10;

async function requestParams(req: FastifyRequest): Promise<Params> {
  const p = new Params();
  const raw = req.raw.url ?? req.url;
  const q = raw.indexOf('?');
  if (q >= 0) forEachPair(raw.slice(q + 1), (k, v) => p.add(k, v));
  const body = req.body as Buffer | undefined;
  if (!body?.length) return p;
  const type = String(req.headers['content-type'] ?? '');
  if (/^multipart\/form-data/i.test(type)) {
    // undici's own multipart parser (the one behind Request.formData), so no hand-written one.
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(body), { headers: { 'content-type': type } }).formData();
    } catch {
      throw new FeverError(
        'the multipart form body could not be read: send api_key as application/x-www-form-urlencoded or multipart/form-data',
      );
    }
    for (const [k, v] of form) if (typeof v === 'string') p.add(k, v);
  } else {
    forEachPair(body.toString('utf8'), (k, v) => p.add(k, v));
  }
  return p;
}

export const feverPlugin: FastifyPluginAsync<{ app: App }> = async (server, { app }) => {
  const throttle = new LoginThrottle(app.limits, FAILURES_PER_MINUTE, 'fever');
  for (const path of FEVER_PATHS) {
    await server.register(
      async (f) => {
        f.removeAllContentTypeParsers();
        f.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) =>
          done(null, body),
        );
        f.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
          const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
          if (status >= 500) app.log.error({ err }, 'Fever API request failed');
          return reply.code(status).send({
            api_version: FEVER_API_VERSION,
            auth: 0,
            error: status >= 500 ? 'internal error; try again later' : err.message,
          });
        });
        f.route({
          method: ['GET', 'POST'],
          url: '/',
          handler: async (req, reply) => {
            const params = await requestParams(req).catch((e: unknown) => {
              throw e instanceof FeverError ? Object.assign(e, { statusCode: e.status }) : e;
            });
            const wait = await throttle.retryAfterMs('fever', req.ip);
            if (wait > 0) {
              reply.header('Retry-After', String(Math.ceil(wait / 1000)));
              return reply.code(429).send({
                api_version: FEVER_API_VERSION,
                auth: 0,
                error: `too many wrong Fever keys from this address; retry in ${Math.ceil(wait / 1000)} s`,
              });
            }
            const userId = await authenticateFeverKey(app, params.get('api_key'));
            if (userId === undefined) {
              if (params.has('api_key')) await throttle.recordFailure('fever', req.ip);
              return reply.send({
                api_version: FEVER_API_VERSION,
                auth: 0,
                error: params.get('api_key')
                  ? 'unknown api_key: it is md5("<username>:<Fever password>"); set the Fever password with `npx tidings fever-password <username>`'
                  : 'missing api_key: send api_key=md5("<username>:<Fever password>") in the form body',
              });
            }
            try {
              return reply.send(await feverResponse(app, userId, params));
            } catch (e) {
              if (e instanceof FeverError)
                return reply.code(e.status).send({ api_version: FEVER_API_VERSION, auth: 1, error: e.message });
              throw e;
            }
          },
        });
      },
      { prefix: path },
    );
  }
};
