// OAuth client registration (from the CLI) and client authentication (token endpoint).
// Client ids are public random strings; secrets are random and stored as SHA-256 hashes, shown once.
import type { App } from '../../runtime/app.ts';
import type { OAuthClient, GrantType } from '../../model/auth.ts';
import { newSecret, hashToken } from '../passwords.ts';
import { authStore, nowSeconds } from '../repositories.ts';
import { safeEqual } from '../../secrets/keys.ts';

export const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];
const CLIENT_ID_PREFIX = 'tdci_';
const CLIENT_SECRET_PREFIX = 'tdcs_';
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can. Rules: absolute, no fragment
 * (RFC 6749 §3.1.2), https or a native app's private scheme (RFC 8252 §7.1); plain http only to
 * loopback (RFC 8252 §7.3), since the code would otherwise travel in clear text.
 */
function redirectUriProblem(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URI (like https://app.example/callback)`;
  }
  if (uri.includes('#')) return `"${uri}" has a fragment (#…), which redirect URIs must not have`;
  if (FORBIDDEN_SCHEMES.has(u.protocol))
    return `"${uri}" uses the ${u.protocol} scheme, which cannot be a redirect target`;
  if (u.protocol === 'http:' && !LOOPBACK_HOSTS.has(u.hostname))
    return `"${uri}" uses plain http; use https (plain http is only allowed to localhost/127.0.0.1)`;
  // It goes verbatim into a Location header: printable ASCII only (percent-encode anything else).
  if (!/^[\x21-\x7e]+$/.test(uri)) return `"${uri}" contains whitespace or non-ASCII characters; percent-encode them`;
  return undefined;
}

export class ClientRegistrationError extends Error {}

/**
 * An app has a few redirect URIs (one per platform or environment); 5,000 on one client were
 * accepted and stored, each checked on every authorization (issue 25).
 */
export const MAX_REDIRECT_URIS = 20;
/** Longest redirect URI, in characters (browsers and proxies cut Location headers near 8 KB). */
export const MAX_REDIRECT_URI_LENGTH = 2000;

export async function registerClient(
  app: App,
  name: string,
  redirectUris: string[],
  grantTypes: GrantType[] = [...GRANT_TYPES],
): Promise<{ client: OAuthClient; clientSecret: string }> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new ClientRegistrationError('the client name must be 1-200 characters');
  if (!redirectUris.length) throw new ClientRegistrationError('at least one --redirect-uri is required');
  if (new Set(redirectUris).size > MAX_REDIRECT_URIS)
    throw new ClientRegistrationError(
      `${new Set(redirectUris).size} redirect URIs: at most ${MAX_REDIRECT_URIS} per client (register another client for more)`,
    );
  for (const uri of redirectUris) {
    if (uri.length > MAX_REDIRECT_URI_LENGTH)
      throw new ClientRegistrationError(
        `a redirect URI is ${uri.length} characters long: at most ${MAX_REDIRECT_URI_LENGTH}`,
      );
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientRegistrationError(problem);
  }
  if (!grantTypes.length) throw new ClientRegistrationError('at least one grant type is required');
  for (const g of grantTypes)
    if (!GRANT_TYPES.includes(g))
      throw new ClientRegistrationError(`unknown grant type "${g}" (use ${GRANT_TYPES.join(' or ')})`);
  const clientSecret = newSecret(CLIENT_SECRET_PREFIX);
  const client = await authStore(app).clients.create(
    {
      clientId: newSecret(CLIENT_ID_PREFIX, 16),
      secretHash: hashToken(clientSecret),
      name: trimmed,
      redirectUris: [...new Set(redirectUris)],
      grantTypes: [...new Set(grantTypes)],
    },
    nowSeconds(),
  );
  return { client, clientSecret };
}

/** The client when the id exists and the secret matches (compared as hashes, in constant time). */
export async function authenticateClient(
  app: App,
  clientId: string,
  clientSecret: string,
): Promise<OAuthClient | undefined> {
  const client = await authStore(app).clients.findByClientId(clientId);
  const given = hashToken(clientSecret);
  // Compare even for unknown clients so timing does not reveal which ids exist.
  const ok = safeEqual(given, client?.secretHash ?? hashToken('no client'));
  return client && ok ? client : undefined;
}
