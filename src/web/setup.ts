// First run: while no account exists, the first (admin) account can be created from the browser,
// but only with the one-time setup link the server prints in its log. Without it, anyone who
// reaches a fresh instance served on 0.0.0.0 could claim it.
//
// One link per install: the secret's SHA-256 is kept in the database (migration 140), so the link
// works on every worker of `tidings serve --workers N` and on every machine sharing a PostgreSQL
// database, until the first account is created with it. Only one process issues and prints it:
// the supervisor under --workers N (before it forks the workers), or the single server process;
// workers never do. Each start of that process issues a fresh link that replaces an unused one
// (only the hash is stored, so an earlier link cannot be printed again): after a restart, open the
// link printed last. A worker that restarts issues nothing, so the printed link stays valid.
// Issuing and printing the link is in src/auth/setup-link.ts, which the supervisor loads without
// the web app.
import type { App } from '../runtime/app.ts';
import type { User } from '../model/user.ts';
import { hashToken } from '../auth/passwords.ts';
import { issueSetupSecret } from '../auth/setup-link.ts';
import { checkPassword, checkUsername, createAccount } from '../auth/accounts.ts';
import { webStore } from './repositories.ts';
import { WebError } from './errors.ts';

export { setupLink } from '../auth/setup-link.ts';

/** The secret this process issued (and printed), per App: issued once. */
const issued = new WeakMap<App, Promise<string | undefined>>();

export async function setupRequired(app: App): Promise<boolean> {
  return (await webStore(app).accounts.userCount()) === 0;
}

/** The setup secret this process issued (issued on the first call while no account exists). */
export async function setupSecret(app: App): Promise<string | undefined> {
  let s = issued.get(app);
  if (!s) {
    s = issueSetupSecret(webStore(app).accounts);
    issued.set(app, s);
  }
  const secret = await s;
  return secret !== undefined && (await setupRequired(app)) ? secret : undefined;
}

export async function completeSetup(app: App, secret: string, username: string, password: string): Promise<User> {
  const { accounts } = webStore(app);
  if (!(await setupRequired(app)))
    throw new WebError(409, 'already_set_up', 'this instance already has an account: sign in instead');
  const badLink = () =>
    new WebError(
      403,
      'bad_setup_link',
      'the setup link is wrong or used up: open the link the server printed last in its log (each start of the server prints a new one)',
    );
  if (typeof secret !== 'string' || !secret) throw badLink();
  const hash = hashToken(secret);
  if (!(await accounts.hasSetupToken(hash))) throw badLink();
  // Bad input is refused before the secret is used up, so the person corrects it with the same link.
  checkUsername(username);
  checkPassword(password);
  // One use, on every process: of two requests racing with the right secret, one finds it gone.
  if (!(await accounts.consumeSetupToken(hash))) throw badLink();
  try {
    const user = await createAccount(app, username, password);
    await app.users.setAdmin(user.id, true);
    return user;
  } catch (e) {
    // Not created: give the secret back (unless a newer link replaced it meanwhile).
    await accounts.restoreSetupToken(hash, Date.now());
    throw e;
  }
}
