// A running server with a user and an OAuth client, for the auth HTTP tests.
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { buildServer } from '../src/server/server.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { registerClient } from '../src/auth/oauth/clients.ts';
import type { GrantType } from '../src/model/auth.ts';
import { tempDataDir } from './helpers.ts';

export const PASSWORD = 'correct horse battery';
export const REDIRECT = 'https://app.example/callback';

export interface Fixture {
  app: App;
  base: string;
  userId: number;
  client: { id: string; secret: string; name: string };
  close(): Promise<void>;
}

export async function startFixture(overrides: Partial<Config> = {}): Promise<Fixture> {
  const dataDir = tempDataDir('tidings-auth-http-');
  const app = await createApp(
    loadConfig({ env: {}, overrides: { dataDir, schedulerEnabled: false, ...overrides } }),
    silentLogger,
  );
  const user = await app.users.create('alice', await hashPassword(PASSWORD));
  const { client, clientSecret } = await registerClient(app, 'My <Reader> "App"', [
    REDIRECT,
    'https://app.example/other?x=1',
  ]);
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const port = (server.server.address() as AddressInfo).port;
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    userId: user.id,
    client: { id: client.clientId, secret: clientSecret, name: client.name },
    async close() {
      await server.close();
      await app.close();
    },
  };
}

export async function addClient(f: Fixture, grantTypes: GrantType[]): Promise<{ id: string; secret: string }> {
  const { client, clientSecret } = await registerClient(f.app, 'Other App', [REDIRECT], grantTypes);
  return { id: client.clientId, secret: clientSecret };
}

export function form(fields: Record<string, string | undefined>): URLSearchParams {
  const f = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) f.append(k, v);
  return f;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(f: Fixture, params: Record<string, string | undefined>): string {
  const q = form({
    client_id: f.client.id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'read write',
    state: 'xyz',
    ...params,
  });
  return `${f.base}/oauth2/auth?${q}`;
}

export interface ConsentPage {
  status: number;
  html: string;
  cookie: string;
  fields: Record<string, string>;
}

/** GETs the consent page and reads its form: hidden fields (with the CSRF token) and the cookie. */
export async function openConsent(url: string, cookie = ''): Promise<ConsentPage> {
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const html = await res.text();
  const setCookie = res.headers.get('set-cookie');
  return { status: res.status, html, cookie: setCookie ? setCookie.split(';')[0] : cookie, fields: hiddenFields(html) };
}

export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    out[m[1]] = unescapeHtml(m[2]);
  return out;
}

function unescapeHtml(s: string): string {
  return s.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
  );
}

/** POSTs the consent form as a browser would (same cookie), returning the raw response. */
export async function submitConsent(
  f: Fixture,
  page: ConsentPage,
  extra: Record<string, string | undefined>,
  cookie = page.cookie,
): Promise<Response> {
  return fetch(`${f.base}/oauth2/auth`, {
    method: 'POST',
    redirect: 'manual',
    body: form({ ...page.fields, ...extra }),
    headers: cookie ? { cookie } : {},
  });
}

/** The whole browser part: consent page, log in, approve; returns the code from the redirect. */
export async function authorize(f: Fixture, params: Record<string, string | undefined> = {}): Promise<string> {
  const page = await openConsent(authorizeUrl(f, params));
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${page.html}`);
  const res = await submitConsent(f, page, { username: 'alice', password: PASSWORD, decision: 'approve' });
  if (res.status !== 302) throw new Error(`consent POST answered ${res.status}: ${await res.text()}`);
  const code = new URL(res.headers.get('location')!).searchParams.get('code');
  if (!code) throw new Error(`no code in ${res.headers.get('location')}`);
  return code;
}

export async function tokenRequest(
  f: Fixture,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${f.base}/oauth2/token`, {
    method: 'POST',
    body: form(fields),
    headers,
    redirect: 'manual',
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}
