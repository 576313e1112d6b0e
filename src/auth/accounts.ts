// Account changes shared by the CLI and the web app: creating users, changing and resetting
// passwords, removing users. Rules live here once; callers map AccountError to their own output.
import type { App } from '../runtime/app.ts';
import type { User } from '../model/user.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { authStore, nowSeconds } from './repositories.ts';

const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const MIN_PASSWORD_LENGTH = 8;
/** scrypt takes any length; a cap keeps a megabyte "password" from costing a megabyte of hashing. */
export const MAX_PASSWORD_LENGTH = 1024;

export class AccountError extends Error {
  readonly code: 'invalid' | 'exists' | 'not_found' | 'wrong_password';
  readonly field?: string;
  constructor(code: AccountError['code'], message: string, field?: string) {
    super(message);
    this.code = code;
    this.field = field;
  }
}

export function checkUsername(username: string): void {
  if (!USERNAME_RE.test(username))
    throw new AccountError(
      'invalid',
      `invalid username "${username}": use 1-64 letters, digits, . _ @ - (starting with a letter or digit)`,
      'username',
    );
}

export function checkPassword(password: string, field = 'password'): void {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH)
    throw new AccountError('invalid', `the password must be at least ${MIN_PASSWORD_LENGTH} characters long`, field);
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new AccountError('invalid', `the password must be at most ${MAX_PASSWORD_LENGTH} characters long`, field);
}

/** An optional e-mail address: null, or something@somewhere of at most 254 characters. */
export function checkEmail(email: string | null): void {
  if (email !== null && (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email)))
    throw new AccountError('invalid', `"${email}" is not an e-mail address`, 'email');
}

export async function createAccount(
  app: App,
  username: string,
  password: string,
  email: string | null = null,
): Promise<User> {
  checkUsername(username);
  checkPassword(password);
  checkEmail(email);
  if (await app.users.findByName(username))
    throw new AccountError('exists', `user "${username}" already exists`, 'username');
  return await app.users.create(username, await hashPassword(password), email);
}

/**
 * Sets a new password. A new password is usually a reaction to a leak, so every bearer token of
 * the user is revoked too (the caller ends web sessions). Returns how many tokens were revoked.
 */
export async function setPassword(app: App, userId: number, password: string): Promise<number> {
  checkPassword(password);
  await app.users.setPasswordHash(userId, await hashPassword(password));
  return await authStore(app).tokens.revokeAllForUser(userId, nowSeconds());
}

/** Changes the user's own password after checking the current one. */
export async function changeOwnPassword(app: App, userId: number, current: string, next: string): Promise<number> {
  const user = await app.users.findById(userId);
  if (!user) throw new AccountError('not_found', 'this account no longer exists');
  const full = await app.users.findByName(user.username);
  if (!full || !(await verifyPassword(String(current ?? ''), full.passwordHash)))
    throw new AccountError('wrong_password', 'the current password is wrong', 'current');
  checkPassword(next, 'password');
  return await setPassword(app, userId, next);
}
