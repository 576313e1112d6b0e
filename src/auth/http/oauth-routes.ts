// HTTP side of the OAuth 2.0 authorization server: the authorization endpoint (login + consent
// page), the token endpoint and RFC 7009 revocation. The rules live in ../oauth/.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../runtime/app.ts';
import { checkLogin } from '../login.ts';
import {
  checkAuthorizationRequest,
  authorizationParams,
  approve,
  deny,
  type AuthorizationRequest,
} from '../oauth/authorize.ts';
import { consentPage, errorPage } from '../oauth/consent-page.ts';
import {
  CSRF_COOKIE,
  newBrowserSecret,
  consentFormToken,
  checkConsentFormToken,
  readCookie,
} from '../oauth/consent-csrf.ts';
import { exchangeCode, refresh, revokeToken } from '../oauth/grants.ts';
import { authenticateClient } from '../oauth/clients.ts';
import { OAuthError } from '../oauth/errors.ts';
import type { OAuthClient } from '../../model/auth.ts';
import { paramsFromRequest, type Params } from '../../http/params.ts';
import { jsonError, type ApiErrorShape } from '../../http/error-shape.ts';

/** Errors under /oauth2 before a route runs, as RFC 6749 words them. */
export const oauthErrors: ApiErrorShape = {
  prefixes: ['/oauth2'],
  // RFC 6749 §5.2 has no code for an unknown endpoint or method: invalid_request is the closest.
  shape: (_status, message) => jsonError({ error: 'invalid_request', error_description: message }),
  endpointHint: 'the OAuth 2.0 endpoints are GET/POST /oauth2/auth, POST /oauth2/token and POST /oauth2/revoke',
  notFoundHeaders: { 'cache-control': 'no-store' },
};

// Relative, so the form posts back to this endpoint behind any reverse-proxy path prefix.
const FORM_ACTION = 'auth';

export async function oauthRoutes(server: FastifyInstance, opts: { app: App }): Promise<void> {
  const { app } = opts;

  // Failures before a handler runs (unparsable or oversized body) still answer in each endpoint's
  // own format: RFC 6749 JSON on the token endpoints, an HTML page on the authorization endpoint.
  server.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) app.log.error({ err }, 'OAuth request failed');
    if (req.routeOptions.url === '/oauth2/auth') {
      return sendPage(
        reply,
        status,
        errorPage(
          'Authorization failed',
          status === 500 ? 'Something went wrong on the server; try again.' : err.message,
        ),
      );
    }
    reply.header('Cache-Control', 'no-store');
    return reply
      .code(status)
      .send(
        status === 500
          ? { error: 'server_error', error_description: 'internal error; try again later' }
          : { error: 'invalid_request', error_description: err.message },
      );
  });

  server.get('/oauth2/auth', async (req, reply) => {
    const check = await checkAuthorizationRequest(
      app,
      paramsFromRequest(req.url, req.body, { query: true, body: false }).asMap(),
    );
    if (check.kind === 'fatal') return sendPage(reply, 400, errorPage('Authorization failed', check.message));
    if (check.kind === 'redirect') return reply.redirect(check.location, 302);
    return showConsent(req, reply, check.request, 200);
  });

  server.post('/oauth2/auth', async (req, reply) => {
    // The form's hidden fields carry the authorization parameters; the query string is ignored.
    const p = paramsFromRequest(req.url, req.body, { query: false, body: true });
    const check = await checkAuthorizationRequest(app, p.asMap());
    const csrf = await checkConsentFormToken(
      app,
      readCookie(req.headers.cookie, CSRF_COOKIE),
      p.get('csrf_token'),
      authorizationParams(p.asMap()),
    );
    if (csrf !== 'ok') {
      const why =
        csrf === 'expired'
          ? 'The form expired.'
          : 'The form was not sent from this server, or your browser did not send its cookie.';
      return sendPage(
        reply,
        403,
        errorPage(
          'Authorization refused',
          `${why} Go back to the app and start the authorization again (cookies must be enabled for this page).`,
        ),
      );
    }
    if (check.kind === 'fatal') return sendPage(reply, 400, errorPage('Authorization failed', check.message));
    if (check.kind === 'redirect') return reply.redirect(check.location, 302);
    const request = check.request;
    const decision = p.get('decision');
    if (decision === 'deny') return reply.redirect(deny(request), 302);
    const username = p.get('username')?.trim() ?? '';
    if (decision !== 'approve') return showConsent(req, reply, request, 400, 'Choose Allow or Deny.', username);
    const password = p.get('password') ?? '';
    if (!username || !password)
      return showConsent(req, reply, request, 400, 'Enter your username and password.', username);
    const login = await checkLogin(app, username, password, req.ip);
    if (!login.ok && login.reason === 'throttled') {
      reply.header('Retry-After', String(login.retryAfterSeconds));
      return showConsent(
        req,
        reply,
        request,
        429,
        `Too many failed logins. Wait ${login.retryAfterSeconds} seconds and try again.`,
        username,
      );
    }
    if (!login.ok) return showConsent(req, reply, request, 200, 'Wrong username or password.', username);
    app.log.info(
      { clientId: request.client.clientId, userId: login.user.id, scope: [...request.scopes] },
      'OAuth authorization granted',
    );
    return reply.redirect(await approve(app, request, login.user.id), 302);
  });

  server.post('/oauth2/token', async (req, reply) => {
    reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
    try {
      const p = paramsFromRequest(req.url, req.body, { query: false, body: true });
      const dup = p.repeated();
      if (dup.length) throw new OAuthError('invalid_request', `repeated parameter: ${dup.join(', ')}`);
      const client = await clientFromRequest(app, req, p);
      const grantType = p.get('grant_type');
      const get = (k: string) => p.get(k);
      if (!grantType)
        throw new OAuthError('invalid_request', 'grant_type is missing (authorization_code or refresh_token)');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        throw new OAuthError(
          'unsupported_grant_type',
          `grant_type "${grantType}" is not supported; use authorization_code or refresh_token`,
        );
      }
      if (!client.grantTypes.includes(grantType))
        throw new OAuthError('unauthorized_client', `this client is not allowed to use the ${grantType} grant`);
      const out =
        grantType === 'authorization_code'
          ? await exchangeCode(app, client, {
              code: get('code'),
              redirect_uri: get('redirect_uri'),
              code_verifier: get('code_verifier'),
            })
          : await refresh(app, client, { refresh_token: get('refresh_token'), scope: get('scope') });
      return reply.send(out);
    } catch (e) {
      return sendOAuthError(reply, e);
    }
  });

  server.post('/oauth2/revoke', async (req, reply) => {
    reply.header('Cache-Control', 'no-store');
    try {
      const p = paramsFromRequest(req.url, req.body, { query: false, body: true });
      const client = await clientFromRequest(app, req, p);
      const token = p.get('token');
      if (!token) throw new OAuthError('invalid_request', 'token is missing');
      await revokeToken(app, client, token);
      return reply.code(200).send();
    } catch (e) {
      return sendOAuthError(reply, e);
    }
  });

  async function showConsent(
    req: FastifyRequest,
    reply: FastifyReply,
    request: AuthorizationRequest,
    status: number,
    error?: string,
    username?: string,
  ) {
    let secret = readCookie(req.headers.cookie, CSRF_COOKIE);
    if (!secret || !/^[A-Za-z0-9_-]{32}$/.test(secret)) {
      secret = newBrowserSecret();
      reply.header(
        'Set-Cookie',
        `${CSRF_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400${req.protocol === 'https' ? '; Secure' : ''}`,
      );
    }
    const csrfToken = await consentFormToken(app, secret, request.params);
    return sendPage(reply, status, consentPage({ request, csrfToken, formAction: FORM_ACTION, error, username }));
  }
}

function sendPage(reply: FastifyReply, status: number, html: string) {
  return (
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer')
      // No form-action: browsers apply it to the redirect after the POST, which goes to the app.
      .header(
        'Content-Security-Policy',
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      )
      .send(html)
  );
}

/**
 * Client authentication (RFC 6749 §2.3.1): HTTP Basic, or client_id + client_secret in the form.
 * Basic with the same client_id repeated in the form is tolerated (several libraries do it).
 */
async function clientFromRequest(app: App, req: FastifyRequest, p: Params): Promise<OAuthClient> {
  const header = req.headers.authorization;
  const basic = header && /^\s*basic\s+/i.test(header) ? parseBasic(header) : undefined;
  const formId = p.get('client_id'),
    formSecret = p.get('client_secret');
  let id: string | undefined, secret: string | undefined;
  if (basic !== undefined) {
    if (basic === null) throw invalidClient('the Basic Authorization header is malformed');
    if (formSecret !== undefined)
      throw new OAuthError(
        'invalid_request',
        'send the client credentials once: in the Authorization header or in the form, not both',
      );
    if (formId !== undefined && formId !== basic.id)
      throw new OAuthError('invalid_request', 'client_id in the form differs from the one in the Authorization header');
    ({ id, secret } = basic);
  } else {
    id = formId;
    secret = formSecret;
  }
  if (!id)
    throw invalidClient('client authentication is missing: send client_id and client_secret (form or HTTP Basic)');
  const client = secret ? await authenticateClient(app, id, secret) : undefined;
  if (!client) throw invalidClient(secret ? 'unknown client_id or wrong client_secret' : 'client_secret is missing');
  return client;
}

const invalidClient = (description: string) => new OAuthError('invalid_client', description);

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before Base64. null when malformed. */
function parseBasic(header: string): { id: string; secret: string } | null {
  const m = /^\s*basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  try {
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: dec(decoded.slice(0, i)), secret: dec(decoded.slice(i + 1)) };
  } catch {
    return null;
  }
}

function sendOAuthError(reply: FastifyReply, e: unknown) {
  if (!(e instanceof OAuthError)) throw e;
  if (e.error === 'invalid_client') {
    // 401 with the scheme clients may use (RFC 6749 §5.2; mandatory when Basic was tried).
    return reply.code(401).header('WWW-Authenticate', 'Basic realm="tidings", charset="UTF-8"').send(e.body());
  }
  return reply.code(400).send(e.body());
}
