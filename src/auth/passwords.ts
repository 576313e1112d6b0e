// Password hashing with scrypt (memory-hard; N=2^15, r=8, p=1 = 32 MiB per hash), from Node's
// crypto, so no native addon is needed. Format: scrypt$N$r$p$salt$hash (base64url), self-describing
// so parameters can be raised later without breaking stored hashes.
import { scrypt, randomBytes, timingSafeEqual, hash } from 'node:crypto';

const N = 1 << 15,
  R = 8,
  P = 1,
  KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((res, rej) =>
    scrypt(password.normalize('NFC'), salt, KEYLEN, { N: n, r, p, maxmem: MAXMEM }, (e, k) => (e ? rej(e) : res(k))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Random bearer secrets (tokens, API keys): URL-safe, no '=', '&' or whitespace. */
export function newSecret(prefix = '', bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/**
 * Tokens and API keys are high-entropy random strings, so a fast SHA-256 is the right hash for
 * them (lookup by hash on every request); a KDF is only needed for low-entropy passwords.
 */
export function hashToken(token: string): string {
  // One-shot: no Hash object per request (a third of createHash's time, measured warm).
  return hash('sha256', token, 'hex');
}
