// One random server key (stored in auth_secrets, created on first use) signs the values the server
// must recognise later without storing them: write tokens (T), consent-form CSRF tokens, web
// sessions, Fever key MACs, favicon URLs.
// Separate purposes are domain-separated in the MAC input, so one value never passes as another.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';

/** Unix seconds, the time unit of auth_secrets.created_at. */
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The key, read (or created) once per App. */
const serverKey = perApp(async (app): Promise<Buffer> => {
  const stored = await app.store.authSecrets.getOrCreate(
    'hmac-v1',
    () => randomBytes(32).toString('base64url'),
    nowSeconds(),
  );
  return Buffer.from(stored, 'base64url');
});

/** HMAC-SHA256 of `purpose` and the parts, base64url (43 characters, no '=', '&' or whitespace). */
export async function sign(app: App, purpose: string, ...parts: string[]): Promise<string> {
  const mac = createHmac('sha256', await serverKey(app)).update(purpose);
  // Length-prefix every part so ("ab","c") and ("a","bc") sign differently.
  for (const p of parts) mac.update(`\0${Buffer.byteLength(p)}:`).update(p);
  return mac.digest('base64url');
}

/** Constant-time string comparison (false on different lengths). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// Secrets the server must read back (webhook signing secrets, WebSub HMAC secrets) cannot be
// hashed: they are sealed with AES-256-GCM under a separate server key, so the table holding them
// is not enough to read them.
const sealKey = perApp(async (app): Promise<Buffer> => {
  const stored = await app.store.authSecrets.getOrCreate(
    'seal-v1',
    () => randomBytes(32).toString('base64url'),
    nowSeconds(),
  );
  return Buffer.from(stored, 'base64url');
});

/** Encrypts a secret for storage: "iv.tag.ciphertext" in base64url. */
export async function sealSecret(app: App, secret: string): Promise<string> {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', await sealKey(app), iv);
  const data = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
  return [iv, c.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

/** Decrypts what sealSecret stored (throws when it was tampered with). */
export async function openSecret(app: App, box: string): Promise<string> {
  const [iv, tag, data] = box.split('.').map((p) => Buffer.from(p, 'base64url'));
  const d = createDecipheriv('aes-256-gcm', await sealKey(app), iv!);
  d.setAuthTag(tag!);
  return Buffer.concat([d.update(data!), d.final()]).toString('utf8');
}
