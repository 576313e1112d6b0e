// The authentication domain's repositories, taken from the App's store.
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';
import type {
  TokenRepository,
  OAuthClientRepository,
  AuthorizationCodeRepository,
  AuthSecretRepository,
} from '../store/repositories.ts';

export interface AuthStore {
  readonly tokens: TokenRepository;
  readonly clients: OAuthClientRepository;
  readonly codes: AuthorizationCodeRepository;
  readonly secrets: AuthSecretRepository;
}

export const authStore: (app: App) => AuthStore = perApp((app) => ({
  tokens: app.store.tokens,
  clients: app.store.oauthClients,
  codes: app.store.authCodes,
  secrets: app.store.authSecrets,
}));

/** Unix seconds: the time unit of every *_at column. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
