// The authorization endpoint's rules (RFC 6749 §4.1.1, §4.1.2, RFC 7636), free of HTTP.
// Problems with client_id or redirect_uri are shown to the user and never redirected (§4.1.2.1:
// redirecting to an unverified URI would make the server an open redirector); every other problem
// goes back to the client's redirect URI with `error` and `state`.
import { createHash, randomBytes } from 'node:crypto';
import type { App } from '../../runtime/app.ts';
import type { OAuthClient, Scope } from '../../model/auth.ts';
import { newSecret, hashToken } from '../passwords.ts';
import { authStore, nowSeconds } from '../repositories.ts';
import { CODE_TTL_SECONDS, TOKEN_PREFIX } from '../tokens.ts';
import { parseScopes, formatScopes } from '../scopes.ts';
import type { OAuthErrorCode } from './errors.ts';

/** The request parameters the consent form carries through (as hidden fields) to its POST. */
export const AUTHORIZATION_PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;
export type AuthorizationParams = Partial<Record<(typeof AUTHORIZATION_PARAMS)[number], string>>;

export interface AuthorizationRequest {
  client: OAuthClient;
  /** Where the answer goes: the redirect_uri sent, or the client's only registered one. */
  redirectUri: string;
  /** Whether redirect_uri was sent (then the token request must repeat it, RFC 6749 §4.1.3). */
  redirectUriSent: boolean;
  scopes: Set<Scope>;
  state: string | undefined;
  codeChallenge: string | undefined;
  /** The parameters exactly as received, to carry through the consent form. */
  params: AuthorizationParams;
}

export type AuthorizationCheck =
  | { kind: 'ok'; request: AuthorizationRequest }
  /** Show an error page; do not redirect. */
  | { kind: 'fatal'; message: string }
  /** Redirect to the client with an error. */
  | { kind: 'redirect'; location: string };

// RFC 7636 §4.1/§4.2: 43-128 unreserved characters.
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * Checks an authorization request. `given` holds every parameter with all its values (repeats are
 * errors, RFC 6749 §3.1).
 */
export async function checkAuthorizationRequest(
  app: App,
  given: ReadonlyMap<string, string[]>,
): Promise<AuthorizationCheck> {
  const params = authorizationParams(given);

  if ((given.get('client_id')?.length ?? 0) > 1) return { kind: 'fatal', message: 'The request repeats client_id.' };
  if (!params.client_id)
    return { kind: 'fatal', message: 'The request has no client_id: the app that sent you here is misconfigured.' };
  const client = await authStore(app).clients.findByClientId(params.client_id);
  if (!client)
    return {
      kind: 'fatal',
      message: 'The client_id is not registered on this server: the app that sent you here is misconfigured.',
    };

  if ((given.get('redirect_uri')?.length ?? 0) > 1)
    return { kind: 'fatal', message: 'The request repeats redirect_uri.' };
  let redirectUri: string;
  if (params.redirect_uri !== undefined) {
    // Exact string match against the registered URIs: no prefix, case or normalisation tricks.
    if (!client.redirectUris.includes(params.redirect_uri)) {
      return {
        kind: 'fatal',
        message: `The redirect_uri is not one registered for ${client.name}; the request was stopped so your authorization cannot be sent elsewhere.`,
      };
    }
    redirectUri = params.redirect_uri;
  } else if (client.redirectUris.length === 1) {
    redirectUri = client.redirectUris[0];
  } else {
    return { kind: 'fatal', message: `The request has no redirect_uri, and ${client.name} registered several.` };
  }

  const state = params.state;
  const fail = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({
    kind: 'redirect',
    location: redirectWith(redirectUri, { error, error_description: description, state }),
  });

  const repeats = [...given]
    .filter(([k, v]) => v.length > 1 && (AUTHORIZATION_PARAMS as readonly string[]).includes(k))
    .map(([k]) => k);
  if (repeats.length) return fail('invalid_request', `repeated parameter: ${repeats.join(', ')}`);
  if (!params.response_type) return fail('invalid_request', 'response_type is missing (use response_type=code)');
  if (params.response_type !== 'code')
    return fail('unsupported_response_type', `response_type "${params.response_type}" is not supported; use "code"`);
  if (!client.grantTypes.includes('authorization_code'))
    return fail('unauthorized_client', 'this client is not allowed to use the authorization code grant');
  const scopes = parseScopes(params.scope);
  if (!scopes) return fail('invalid_scope', `scope "${params.scope}" is not valid; use "read" or "read write"`);

  const challenge = params.code_challenge,
    method = params.code_challenge_method;
  if (challenge !== undefined || method !== undefined) {
    if (challenge === undefined)
      return fail('invalid_request', 'code_challenge_method was sent without code_challenge');
    // "plain" (also the default when the method is absent) is refused: it protects nothing when the
    // authorization request is observed, and every PKCE client can do S256 (RFC 7636 §4.2, §7.2).
    if (method !== 'S256')
      return fail(
        'invalid_request',
        `code_challenge_method must be S256${method ? ` (got "${method}")` : ' (plain, the default, is not supported)'}`,
      );
    if (!PKCE_VALUE.test(challenge))
      return fail('invalid_request', 'code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~');
  }

  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      redirectUriSent: params.redirect_uri !== undefined,
      scopes,
      state,
      codeChallenge: challenge,
      params,
    },
  };
}

/** The first value of each authorization parameter present. */
export function authorizationParams(given: ReadonlyMap<string, string[]>): AuthorizationParams {
  const params: AuthorizationParams = {};
  for (const k of AUTHORIZATION_PARAMS) {
    const v = given.get(k)?.[0];
    if (v !== undefined) params[k] = v;
  }
  return params;
}

/** Issues a single-use code (stored hashed, 10 minutes) and returns the redirect carrying it. */
export async function approve(app: App, request: AuthorizationRequest, userId: number): Promise<string> {
  const code = newSecret(TOKEN_PREFIX.code);
  const now = nowSeconds();
  await authStore(app).codes.insert(
    {
      codeHash: hashToken(code),
      clientId: request.client.clientId,
      userId,
      redirectUri: request.redirectUriSent ? request.redirectUri : null,
      scopes: formatScopes(request.scopes),
      codeChallenge: request.codeChallenge ?? null,
      codeChallengeMethod: request.codeChallenge ? 'S256' : null,
      grantId: randomBytes(16).toString('base64url'),
      expiresAt: now + CODE_TTL_SECONDS,
    },
    now,
  );
  return redirectWith(request.redirectUri, { code, state: request.state });
}

export function deny(request: AuthorizationRequest): string {
  return redirectWith(request.redirectUri, {
    error: 'access_denied',
    error_description: 'the user denied access',
    state: request.state,
  });
}

/**
 * Appends parameters to a registered redirect URI, keeping its own query string as it is
 * (re-serialising it through URLSearchParams would change its encoding).
 */
function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, v);
  const s = q.toString();
  if (!s) return uri;
  return uri + (uri.includes('?') ? (uri.endsWith('?') || uri.endsWith('&') ? '' : '&') : '?') + s;
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export { PKCE_VALUE };
