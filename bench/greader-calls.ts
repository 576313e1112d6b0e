// The Google Reader calls of ../shared/tools/greader-bench.mjs, as request descriptions (method,
// URL, headers, body), built once per server after ClientLogin: the FreshRSS peer bench and the
// per-round bench make the same calls on FreshRSS and on Tidings from this one list, whichever
// client sends them (fetch, node:http, curl).
import { type Agent, request } from 'node:http';
import { greaderLogin } from './greader-login.ts';

export interface ReaderCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ReaderCalls {
  /** The reading list's first 1,000 ids (stream/items/ids n=1000), newest first. */
  ids: string[];
  /** By name, in greader-bench's order; the reads, then `edit-tag 1000 read` and `… unread`. */
  calls: Map<string, ReaderCall>;
}

/** Logs in as `user` at `base` (a Reader API root: Tidings' origin or FreshRSS's greader.php) and builds the calls. */
export async function readerCalls(base: string, user: string, password: string): Promise<ReaderCalls> {
  const H = await greaderLogin(base, user, password);
  const FORM = { ...H, 'content-type': 'application/x-www-form-urlencoded' };
  const api = (p: string) => `${base}/reader/api/0/${p}`;
  const RL = encodeURIComponent('user/-/state/com.google/reading-list');
  const READ = encodeURIComponent('user/-/state/com.google/read');
  const ids = (
    (await (await fetch(api(`stream/items/ids?output=json&s=${RL}&n=1000`), { headers: H })).json()) as {
      itemRefs: { id: string }[];
    }
  ).itemRefs.map((r) => r.id);
  const form = (n: number) =>
    ids
      .slice(0, n)
      .map((i) => `i=${i}`)
      .join('&');
  const get = (path: string): ReaderCall => ({ method: 'GET', url: api(path), headers: H });
  const post = (path: string, body: string): ReaderCall => ({ method: 'POST', url: api(path), headers: FORM, body });
  const calls = new Map<string, ReaderCall>([
    ['stream/contents n=1000', get(`stream/contents/${RL}?output=json&n=1000`)],
    ['stream/contents n=1000 unread', get(`stream/contents/${RL}?output=json&n=1000&xt=${READ}`)],
    ['stream/contents n=20', get(`stream/contents/${RL}?output=json&n=20`)],
    ['items/ids n=10000 unread', get(`stream/items/ids?output=json&s=${RL}&xt=${READ}&n=10000`)],
    ['items/contents 150 ids', post('stream/items/contents?output=json', form(150))],
    ['unread-count', get('unread-count?output=json')],
    ['edit-tag 1000 read', post('edit-tag', `${form(1000)}&a=${READ}`)],
    ['edit-tag 1000 unread', post('edit-tag', `${form(1000)}&r=${READ}`)],
  ]);
  return { ids, calls };
}

/** Sends a call with fetch. */
export function fetchCall(call: ReaderCall): Promise<Response> {
  return fetch(call.url, { method: call.method, headers: call.headers, body: call.body });
}

/**
 * Sends one call through node:http on a keep-alive Agent and resolves with its status and body
 * bytes, the body kept as the Buffers the socket gives (as a client must), neither joined, decoded
 * nor parsed: the cost of receiving only.
 */
export function sendLean(agent: Agent, call: ReaderCall): Promise<[status: number, bytes: number]> {
  return new Promise((done, fail) => {
    const u = new URL(call.url);
    const headers = call.body
      ? { ...call.headers, 'content-length': String(Buffer.byteLength(call.body)) }
      : call.headers;
    const req = request(
      { agent, method: call.method, host: u.hostname, port: u.port, path: u.pathname + u.search, headers },
      (res) => {
        let bytes = 0;
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => {
          bytes += b.length;
          chunks.push(b);
        });
        res.on('end', () => done([res.statusCode ?? 0, bytes]));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(call.body);
  });
}
