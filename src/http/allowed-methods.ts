// A known path asked with a method it has no route for: the methods it takes, for a 405's Allow
// header and message. Fastify answers such requests with its not-found handler; each API's
// handler asks here (the router knows every route, whichever plugin registered it).
import type { FastifyRequest, HTTPMethods } from 'fastify';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The methods `path` has routes for (for a 405's Allow header); empty for an unknown path. */
export function allowedMethods(request: FastifyRequest, path: string): HTTPMethods[] {
  // findRoute matches concrete paths (with parameters); the trailing slash is ignored by the
  // router's options but not here, so both spellings are asked.
  const spellings = [path, path.endsWith('/') ? path.slice(0, -1) : `${path}/`];
  return METHODS.filter((method) => spellings.some((url) => request.server.findRoute({ method, url }) !== null));
}

/** "… takes GET or POST, not DELETE" (HEAD goes without saying). */
export const methodMessage = (path: string, allowed: string[], method: string) =>
  `${path} takes ${allowed.filter((m) => m !== 'HEAD').join(' or ')}, not ${method}`;
