// The HTTP edge of the web API: who is asking (session cookie or bearer token), CSRF and Origin
// checks, cookies, security headers, and errors as {"error":{"code","message","field"}}. Route
// handlers (./routes.ts) receive a checked WebContext and return plain values.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../runtime/app.ts';
import { authenticate as authenticateToken } from '../auth/authenticate.ts';
import { AccountError } from '../auth/accounts.ts';
import { LibraryError } from '../library/errors.ts';
import { FeedError } from '../feeds/index.ts';
import { AnswerError } from '../answer/types.ts';
import { RuleInputError, RuleNotFoundError, RuleTimeoutError } from '../rules/rules.ts';
import { WebhookInputError, WebhookNotFoundError } from '../webhooks/webhooks.ts';
import { FullTextSettingError } from '../feeds/fulltext/fulltext.ts';
import { FeverCredentialError } from '../auth/fever-credentials.ts';
import { checkCsrfToken, findSession, SESSION_COOKIE } from './sessions.ts';
import { WebError } from './errors.ts';
import { ModelError } from '../models/index.ts';

export interface WebAuth {
  userId: number;
  via: 'session' | 'token';
  /** The session cookie value (session auth only): signs the CSRF token. */
  sessionToken?: string;
  sessionId?: number;
  canWrite: boolean;
  isAdmin: boolean;
}

export type Access = 'public' | 'user' | 'admin';

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src * data: blob:',
  'media-src *',
  'frame-src https://www.youtube.com https://www.youtube-nocookie.com https://player.vimeo.com',
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** The origin this server is reached at: publicUrl when set, else what the request says. */
export function ownOrigin(app: App, req: FastifyRequest): string {
  if (app.config.publicUrl) {
    try {
      return new URL(app.config.publicUrl).origin;
    } catch {
      /* fall through */
    }
  }
  return `${req.protocol}://${req.host}`;
}

function isHttps(app: App, req: FastifyRequest): boolean {
  return req.protocol === 'https' || app.config.publicUrl.startsWith('https:');
}

export function sessionCookie(app: App, req: FastifyRequest, value: string, maxAgeSeconds: number): string {
  // HttpOnly: page scripts never see it (the CSRF token comes separately). SameSite=Lax: not sent
  // on cross-site subrequests or POSTs. Secure when served over HTTPS (directly or behind a proxy).
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${isHttps(app, req) ? '; Secure' : ''}`;
}

/**
 * Refuses cross-site state-changing requests: an Origin other than ours, or (browsers that send no
 * Origin) Sec-Fetch-Site: cross-site. Requests without either come from scripts, not browsers.
 */
export function checkOrigin(app: App, req: FastifyRequest): void {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (origin !== ownOrigin(app, req))
      throw new WebError(
        403,
        'cross_origin',
        `requests from ${origin} are refused: the web API only takes changes from its own pages`,
      );
    return;
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site') throw new WebError(403, 'cross_origin', 'cross-site requests are refused');
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Authenticates a request for a route of the given access level; null for public routes without credentials. */
export async function authenticateRequest(app: App, req: FastifyRequest, access: Access): Promise<WebAuth | null> {
  // (The Origin of changes was checked on arrival, before the body: plugin.ts.)
  const unsafe = UNSAFE.has(req.method);
  let auth: WebAuth | null = null;
  const authorization = req.headers.authorization;
  if (authorization) {
    // Scripts: a ClientLogin or OAuth token (tidings token create, or Settings > App tokens).
    const t = await authenticateToken(app, authorization);
    if (!t)
      throw new WebError(
        401,
        'unauthorized',
        'invalid, expired or revoked token: create one under Settings > App tokens (Authorization: Bearer <token>)',
        { headers: { 'www-authenticate': 'Bearer realm="tidings"' } },
      );
    auth = { userId: t.userId, via: 'token', canWrite: t.scopes.has('write'), isAdmin: false };
  } else {
    const token = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    const session = await findSession(app, token);
    if (session) {
      auth = {
        userId: session.userId,
        via: 'session',
        sessionToken: token,
        sessionId: session.id,
        canWrite: true,
        isAdmin: false,
      };
      // Double-submit: the header must carry the token derived from this session's cookie.
      if (
        unsafe &&
        access !== 'public' &&
        !(await checkCsrfToken(app, token!, req.headers['x-csrf-token'] as string | undefined))
      ) {
        throw new WebError(
          403,
          'csrf',
          'missing or wrong X-CSRF-Token header: reload the page (scripts should use a bearer token instead of the cookie)',
        );
      }
    } else if (token && access !== 'public') {
      throw new WebError(401, 'session_expired', 'your session has ended: sign in again');
    }
  }
  if (!auth) {
    if (access === 'public') return null;
    throw new WebError(401, 'unauthorized', 'sign in first (or send Authorization: Bearer <token>)');
  }
  const user = await app.users.findById(auth.userId);
  if (!user) throw new WebError(401, 'unauthorized', 'this account no longer exists');
  auth.isAdmin = user.isAdmin;
  if (unsafe && !auth.canWrite)
    throw new WebError(403, 'insufficient_scope', 'this token is read-only: create one with the "read write" scope');
  if (access === 'admin' && !auth.isAdmin) throw new WebError(403, 'forbidden', 'only administrators may do this');
  return auth;
}

/** A model store refusal: what to fix, with the status that fits. */
function modelWebError(e: ModelError): WebError {
  const [status, code]: [number, string] =
    e.code === 'bad_input'
      ? [400, 'bad_model']
      : e.code === 'busy'
        ? [409, 'download_in_progress']
        : e.code === 'not_found'
          ? [404, 'not_found']
          : e.code === 'disk'
            ? [507, 'insufficient_storage']
            : e.code === 'not_gguf' || e.code === 'hash'
              ? [422, 'bad_model_file']
              : [502, 'download_failed'];
  return new WebError(status, code, e.message);
}

export function errorReply(app: App, reply: FastifyReply, e: unknown): FastifyReply {
  let err: WebError;
  if (e instanceof WebError) err = e;
  else if (e instanceof AccountError)
    err = new WebError(
      e.code === 'exists' ? 409 : e.code === 'not_found' ? 404 : e.code === 'wrong_password' ? 403 : 400,
      e.code,
      e.message,
      { field: e.field },
    );
  else if (e instanceof LibraryError)
    err = new WebError(e.status, e.status === 404 ? 'not_found' : 'bad_request', e.message);
  else if (e instanceof FeedError) err = new WebError(422, `feed_${e.code}`, e.message);
  else if (e instanceof RuleNotFoundError || e instanceof WebhookNotFoundError)
    err = new WebError(404, 'not_found', e.message);
  else if (e instanceof RuleInputError) err = new WebError(400, 'bad_rule', e.message);
  else if (e instanceof RuleTimeoutError) err = new WebError(422, 'rule_timeout', e.message);
  else if (e instanceof WebhookInputError) err = new WebError(400, 'bad_webhook', e.message);
  else if (e instanceof FullTextSettingError) err = new WebError(400, 'bad_request', e.message, { field: 'fullText' });
  else if (e instanceof FeverCredentialError)
    err = new WebError(400, 'bad_fever_password', e.message, { field: 'password' });
  else if (e instanceof ModelError) err = modelWebError(e);
  else if (e instanceof AnswerError)
    err = new WebError(e.code === 'invalid_request' || e.code === 'engine_unavailable' ? 400 : 503, e.code, e.message, {
      field: e.param,
    });
  else {
    const fe = e as { statusCode?: number; message?: string; code?: string };
    if (fe?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      err = new WebError(
        415,
        'unsupported_media_type',
        'send the body as JSON with "Content-Type: application/json" (OPML files as text/xml)',
      );
    else if (fe?.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      err = new WebError(413, 'payload_too_large', 'the request body is too large');
    else if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500)
      err = new WebError(fe.statusCode, 'bad_request', fe.message ?? 'bad request');
    else {
      app.log.error({ err: e }, 'web API request failed');
      err = new WebError(500, 'internal_error', 'internal error; try again later');
    }
  }
  const body: { error: { code: string; message: string; field?: string } } = {
    error: { code: err.code, message: err.message },
  };
  if (err.field) body.error.field = err.field;
  return reply.code(err.status).headers(err.headers).header('cache-control', 'no-store').send(body);
}
