// API keys: `tdg_<id>_<secret>`. The public id (12 hex digits) finds the row; only the SHA-256 of
// the whole key is stored (hashToken: the key is 256 random bits, so a KDF adds nothing), compared
// in constant time. The id also names the key in the CLI (`tidings key revoke <id>`). How a request
// presents its key (a Bearer header) is the chat API's: src/chat-api/request-key.ts.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashToken, newSecret } from './passwords.ts';
import type { ApiKeyRepository } from '../store/repositories.ts';
import type { ApiKey } from '../model/chat.ts';

const KEY_RE = /^tdg_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

function generateKey(): { id: string; key: string } {
  const id = randomBytes(6).toString('hex');
  return { id, key: `tdg_${id}_${newSecret('', 32)}` };
}

/** Longest key name (names are labels shown in lists: "laptop", "home server"). */
const MAX_KEY_NAME_LENGTH = 100;

/** What is wrong with a key name, or null: the one rule of the CLI and the web app. */
export function keyNameProblem(name: string): string | null {
  return name.length > MAX_KEY_NAME_LENGTH ? `the key name must be at most ${MAX_KEY_NAME_LENGTH} characters` : null;
}

export async function createApiKey(
  keys: ApiKeyRepository,
  userId: number,
  name: string,
  tier: number,
): Promise<{ key: string; record: ApiKey }> {
  const { id, key } = generateKey();
  return { key, record: await keys.create({ id, userId, name, keyHash: hashToken(key), tier }) };
}

/** The key presented as-is (e.g. in the access form): undefined unless it is valid and live. */
export async function findLiveKey(keys: ApiKeyRepository, presented: string): Promise<ApiKey | undefined> {
  const m = KEY_RE.exec(presented.trim());
  if (!m) return undefined;
  const row = await keys.findById(m[1]);
  if (!row || row.revokedAt !== null) return undefined;
  const a = Buffer.from(hashToken(presented.trim()), 'hex');
  const b = Buffer.from(row.keyHash, 'hex');
  if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
  const { keyHash: _, ...key } = row;
  return key;
}
