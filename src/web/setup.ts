// First run: while no account exists, the first (admin) account can be created from the browser,
// but only with the one-time setup link the server prints in its log. Without it, anyone who
// reaches a fresh instance served on 0.0.0.0 could claim it. The secret lives in memory only: a
// restart prints a new link, and creating the account uses it up.
import type { App } from '../runtime/app.ts';
import type { User } from '../model/user.ts';
import { newSecret } from '../auth/passwords.ts';
import { safeEqual } from '../secrets/keys.ts';
import { createAccount } from '../auth/accounts.ts';
import { webStore } from './repositories.ts';
import { WebError } from './errors.ts';

const setupSecrets = new WeakMap<App, string>();

export async function setupRequired(app: App): Promise<boolean> {
  return (await webStore(app).accounts.userCount()) === 0;
}

/** The setup secret (created on first call while no account exists); undefined once one exists. */
export async function setupSecret(app: App): Promise<string | undefined> {
  if (!(await setupRequired(app))) {
    setupSecrets.delete(app);
    return undefined;
  }
  let s = setupSecrets.get(app);
  if (!s) {
    s = newSecret('', 24);
    setupSecrets.set(app, s);
  }
  return s;
}

/** The link to print: the page reads the secret from the fragment, so it never reaches a log or a Referer. */
export function setupLink(baseUrl: string, secret: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/#setup=${secret}`;
}

export async function completeSetup(app: App, secret: string, username: string, password: string): Promise<User> {
  const expected = setupSecrets.get(app);
  if (!(await setupRequired(app)))
    throw new WebError(409, 'already_set_up', 'this instance already has an account: sign in instead');
  if (!expected || typeof secret !== 'string' || !safeEqual(secret, expected)) {
    throw new WebError(
      403,
      'bad_setup_link',
      'the setup link is wrong or used up: open the link printed in the server log (restart the server for a new one)',
    );
  }
  // One use: a second request racing this one finds no secret.
  setupSecrets.delete(app);
  try {
    const user = await createAccount(app, username, password);
    await app.users.setAdmin(user.id, true);
    return user;
  } catch (e) {
    setupSecrets.set(app, expected); // bad input: let the person correct it with the same link
    throw e;
  }
}
