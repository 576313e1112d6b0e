// The authentication domain's repositories, one set per App (kept here, not in app.ts).
import { perApp, type App } from '../app.ts';
import type { TokenRepository, OAuthClientRepository, AuthorizationCodeRepository, AuthSecretRepository } from '../store/repositories.ts';
import { SqliteTokenRepository, SqliteAuthSecretRepository } from '../store/sqlite/tokens.ts';
import { SqliteOAuthClientRepository, SqliteAuthorizationCodeRepository } from '../store/sqlite/oauth.ts';

export interface AuthStore {
  readonly tokens: TokenRepository;
  readonly clients: OAuthClientRepository;
  readonly codes: AuthorizationCodeRepository;
  readonly secrets: AuthSecretRepository;
}

export const authStore: (app: App) => AuthStore = perApp((app) => ({
  tokens: new SqliteTokenRepository(app.db),
  clients: new SqliteOAuthClientRepository(app.db),
  codes: new SqliteAuthorizationCodeRepository(app.db),
  secrets: new SqliteAuthSecretRepository(app.db),
}));

/** Unix seconds: the time unit of every *_at column. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
