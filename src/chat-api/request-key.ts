// The authenticated API key of a request, set by the plugin's auth hook. A WeakMap rather than a
// Fastify request decoration keeps the type local to this plugin.
import type { FastifyRequest } from 'fastify';
import type { ApiKey } from '../model/chat.ts';

const keys = new WeakMap<FastifyRequest, ApiKey>();

export function setRequestKey(req: FastifyRequest, key: ApiKey): void {
  keys.set(req, key);
}
export function requestKey(req: FastifyRequest): ApiKey {
  const k = keys.get(req);
  if (!k) throw new Error('route registered without the auth hook');
  return k;
}
