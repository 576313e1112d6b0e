// The authenticated API key of a request, set by the plugin's auth hook from its Bearer header. A
// WeakMap rather than a Fastify request decoration keeps the type local to this plugin.
import type { FastifyRequest } from 'fastify';
import type { ApiKey } from '../model/chat.ts';
import type { ApiKeyRepository } from '../store/repositories.ts';
import { findLiveKey } from '../auth/api-keys.ts';
import { ApiError } from './errors.ts';

const keys = new WeakMap<FastifyRequest, ApiKey>();

export function setRequestKey(req: FastifyRequest, key: ApiKey): void {
  keys.set(req, key);
}
export function requestKey(req: FastifyRequest): ApiKey {
  const k = keys.get(req);
  if (!k) throw new Error('route registered without the auth hook');
  return k;
}

const HOW = 'Send "Authorization: Bearer <API key>"; an operator creates keys with `tidings key create <user>`.';

// RFC 6750: a 401 names the scheme the client should use.
const unauthorized = (message: string) =>
  new ApiError(401, 'unauthorized', message, { 'www-authenticate': 'Bearer realm="tidings"' });

/** Checks an Authorization header: 401 when missing, malformed, unknown or revoked; 403 when disabled. */
export async function authenticate(keys: ApiKeyRepository, authorization: string | undefined): Promise<ApiKey> {
  if (!authorization) throw unauthorized(`Missing API key. ${HOW}`);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) throw unauthorized(`Malformed Authorization header. ${HOW}`);
  const key = await findLiveKey(keys, m[1]);
  if (!key) throw unauthorized(`Invalid or revoked API key. ${HOW}`);
  if (key.disabled)
    throw new ApiError(
      403,
      'forbidden',
      `API key ${key.id} is disabled; ask an operator to run \`tidings key enable ${key.id}\`.`,
    );
  return key;
}
