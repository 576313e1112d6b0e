// The authentication domain's repositories, one set per App (kept here, not in app.ts).
import type { App } from '../app.ts';
import type { TokenRepository, OAuthClientRepository, AuthorizationCodeRepository, AuthSecretRepository } from '../store/repositories.ts';
import { SqliteTokenRepository, SqliteAuthSecretRepository } from '../store/sqlite/tokens.ts';
import { SqliteOAuthClientRepository, SqliteAuthorizationCodeRepository } from '../store/sqlite/oauth.ts';

export interface AuthStore {
  readonly tokens: TokenRepository;
  readonly clients: OAuthClientRepository;
  readonly codes: AuthorizationCodeRepository;
  readonly secrets: AuthSecretRepository;
}

const stores = new WeakMap<App, AuthStore>();

export function authStore(app: App): AuthStore {
  let s = stores.get(app);
  if (!s) {
    s = {
      tokens: new SqliteTokenRepository(app.db),
      clients: new SqliteOAuthClientRepository(app.db),
      codes: new SqliteAuthorizationCodeRepository(app.db),
      secrets: new SqliteAuthSecretRepository(app.db),
    };
    stores.set(app, s);
  }
  return s;
}

/** Unix seconds: the time unit of every *_at column. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
