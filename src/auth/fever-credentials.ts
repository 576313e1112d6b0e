// Fever credentials. The Fever spec fixes the api_key as md5("username:password"), a fast unsalted
// hash, so the password behind it must never be the account password: each user gets a separate
// Fever password. Only an HMAC of the key under the server key is stored (lookup by MAC, since a
// client sends the key alone), so a leaked database neither authenticates nor allows an offline
// guess of the Fever password without the server key as well.
import { createHash, randomBytes } from 'node:crypto';
import type { App } from '../runtime/app.ts';
import { sign } from '../secrets/keys.ts';
import { verifyPassword } from './passwords.ts';
import { nowSeconds } from './repositories.ts';
import type { FeverRepository } from '../store/repositories.ts';

const MIN_FEVER_PASSWORD = 8;

export class FeverCredentialError extends Error {}

const feverStore = (app: App): FeverRepository => app.store.fever;

/** md5(username:password), lowercase hex: what a Fever client sends as api_key. */
function feverApiKey(username: string, password: string): string {
  return createHash('md5').update(`${username}:${password}`).digest('hex');
}

function keyMac(app: App, apiKey: string): Promise<string> {
  return sign(app, 'fever-api-key', apiKey.trim().toLowerCase());
}

/** A generated Fever password: 20 URL-safe characters (120 bits), easy to paste into an app. */
export function generateFeverPassword(): string {
  return randomBytes(15).toString('base64url');
}

/** Sets (or replaces) the user's Fever password; the previous Fever key stops working. */
export async function setFeverPassword(app: App, username: string, password: string): Promise<void> {
  if (password.length < MIN_FEVER_PASSWORD)
    throw new FeverCredentialError(`the Fever password must be at least ${MIN_FEVER_PASSWORD} characters long`);
  const user = await app.users.findByName(username);
  if (!user) throw new FeverCredentialError(`no user "${username}" (see tidings user list)`);
  // md5 of the account password would expose it to anyone who sees one Fever request.
  if (await verifyPassword(password, user.passwordHash))
    throw new FeverCredentialError(
      'the Fever password must differ from the account password (Fever keys are md5 hashes; choose another, or leave it out to get one generated)',
    );
  await feverStore(app).setCredential(user.id, await keyMac(app, feverApiKey(user.username, password)), nowSeconds());
}

/** Whether the user has a Fever password (the Fever API is on for them). */
export async function feverEnabled(app: App, userId: number): Promise<boolean> {
  return await feverStore(app).hasCredential(userId);
}

export async function disableFever(app: App, userId: number): Promise<boolean> {
  return await feverStore(app).deleteCredential(userId);
}

/** The user whose Fever key this is; undefined for a malformed or unknown key. */
export async function authenticateFeverKey(app: App, apiKey: string | undefined): Promise<number | undefined> {
  const key = apiKey?.trim().toLowerCase();
  if (!key || !/^[0-9a-f]{32}$/.test(key)) return undefined;
  return await feverStore(app).userIdByKeyMac(await keyMac(app, key));
}
