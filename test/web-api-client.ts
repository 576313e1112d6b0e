// A browser's side of the web API for the tests: keeps the session cookie and the CSRF token.
import assert from 'node:assert/strict';
import type { Harness } from './reader-harness.ts';
import { setupSecret } from '../src/web/setup.ts';

export class Browser {
  cookie = '';
  csrf = '';
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }
  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: any; text: string; headers: Headers }> {
    const h: Record<string, string> = { origin: this.base, ...headers };
    if (this.cookie) h.cookie = this.cookie;
    if (this.csrf && method !== 'GET') h['x-csrf-token'] = this.csrf;
    let payload: string | undefined;
    if (typeof body === 'string') {
      payload = body;
      h['content-type'] ??= 'text/xml';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    const res = await fetch(this.base + '/api/v1' + path, { method, headers: h, body: payload });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    const text = await res.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (json?.csrfToken) this.csrf = json.csrfToken;
    return { status: res.status, json, text, headers: res.headers };
  }
}

/** Runs first-run setup: the admin account "admin" / "correct horse", signed in. */
export async function setUp(h: Harness): Promise<Browser> {
  const b = new Browser(h.url);
  const secret = (await setupSecret(h.app))!;
  const r = await b.call('POST', '/setup', { secret, username: 'admin', password: 'correct horse' });
  assert.equal(r.status, 200, r.text);
  return b;
}
