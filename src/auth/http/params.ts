// Request parameters of the auth endpoints: query string and form body merged (ClientLogin clients
// use either), repeated keys kept so OAuth can refuse them (RFC 6749 §3.1, §3.2).
import type { FastifyRequest } from 'fastify';
import { parse as parseQueryString } from 'node:querystring';

export type Params = Map<string, string[]>;

export function requestParams(req: FastifyRequest, sources: { query: boolean; body: boolean }): Params {
  const out: Params = new Map();
  const add = (obj: unknown) => {
    if (!obj || typeof obj !== 'object') return;
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      const values = Array.isArray(v) ? v : [v];
      for (const x of values) {
        if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') {
          const list = out.get(k) ?? [];
          list.push(String(x));
          out.set(k, list);
        }
      }
    }
  };
  if (sources.query) add(req.query);
  // A form sent as text/plain reaches us as a string (Fastify's own text parser): read it as a form.
  if (sources.body) add(typeof req.body === 'string' ? parseQueryString(req.body) : req.body);
  return out;
}

/** The first value of a parameter (lenient endpoints like ClientLogin). */
export function first(p: Params, name: string): string | undefined {
  return p.get(name)?.[0];
}

/** Parameters given more than once (strict endpoints: OAuth). */
export function repeated(p: Params): string[] {
  return [...p].filter(([, v]) => v.length > 1).map(([k]) => k);
}
