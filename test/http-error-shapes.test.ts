// Errors raised by the framework before a route runs get the documented shape of the API the path
// falls under: the chat API's {"error":{message,type,code}}, the Reader API's `Error=…` text, the
// ClientLogin `Error=…\nInfo=…`, OAuth's {"error","error_description"}. Real server, real sockets.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startHarness, addUser, clientLogin, type Harness } from './reader-harness.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { createApiKey } from '../src/auth/api-keys.ts';

let h: Harness;
let key: string;
let readerAuth: string;

before(async () => {
  h = await startHarness();
  const userId = await addUser(h.app, 'fay', 'pw-fay-secret');
  key = (await createApiKey(chatStore(h.app).keys, userId, 'test', 0)).key;
  readerAuth = `GoogleLogin auth=${await clientLogin(h.url, 'fay', 'pw-fay-secret')}`;
});
after(async () => {
  await h.close();
});

async function chatError(res: Response, status: number, type: string): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, text.slice(0, 300));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ['error']);
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'type']);
  assert.equal(body.error.code, status);
  assert.equal(body.error.type, type);
  return body.error.message;
}

const bearer = () => ({ authorization: `Bearer ${key}` });

test('chat API: a 10,000-character async job id gets a 414 in the chat error shape', async () => {
  const res = await fetch(`${h.url}/async/chat/completions/${'a'.repeat(10_000)}`, { headers: bearer() });
  const message = await chatError(res, 414, 'bad_request');
  assert.match(message, /too long \(at most 256 characters\)/);
  assert.ok(message.length < 300, 'the path is not echoed whole');
  const normal = await fetch(`${h.url}/async/chat/completions/${'b'.repeat(150)}`, { headers: bearer() });
  assert.match(await chatError(normal, 404, 'not_found'), /No async chat completion with id/);
});

test('chat API: bad JSON, oversized body, non-JSON body, bad URL encoding, huge headers and unknown paths', async () => {
  const post = (body: string, type = 'application/json') =>
    fetch(`${h.url}/chat/completions`, { method: 'POST', headers: { ...bearer(), 'content-type': type }, body });
  await chatError(await post('{"model": "sonar",'), 400, 'bad_request');
  await chatError(await post('x'.repeat(17 * 1024 * 1024)), 413, 'payload_too_large');
  await chatError(await post('not json', 'text/csv'), 415, 'unsupported_media_type');
  assert.match(
    await chatError(await fetch(`${h.url}/async/chat/completions/%E0%A4%A`, { headers: bearer() }), 400, 'bad_request'),
    /percent-encoding/,
  );
  await chatError(await fetch(`${h.url}/no/such/path`), 404, 'not_found');
  assert.match(
    await chatError(await fetch(`${h.url}/models?q=${'x'.repeat(20_000)}`), 431, 'bad_request'),
    /over 16 KiB/,
  );
});

test('Reader API, ClientLogin and OAuth paths get their own shapes for the same framework errors', async () => {
  const reader = await fetch(`${h.url}/reader/api/0/stream/contents/%E0%A4%A`, {
    headers: { authorization: readerAuth },
  });
  assert.equal(reader.status, 400);
  assert.match(reader.headers.get('content-type') ?? '', /^text\/plain/);
  assert.match(
    await reader.text(),
    /^Error=The URL path \/reader\/api\/0\/stream\/contents\/%E0%A4%A is not valid percent-encoding/,
  );
  const huge = await fetch(`${h.url}/reader/api/0/stream/contents?s=${'x'.repeat(20_000)}`, {
    headers: { authorization: readerAuth },
  });
  assert.equal(huge.status, 431);
  assert.match(await huge.text(), /^Error=The request line and headers are over 16 KiB/);
  const login = await fetch(`${h.url}/accounts/ClientLogin/%E0%A4%A`);
  assert.equal(login.status, 400);
  assert.match(await login.text(), /^Error=BadRequest\nInfo=/);
  const oauth = await fetch(`${h.url}/oauth2/%E0%A4%A`);
  assert.equal(oauth.status, 400);
  assert.equal(((await oauth.json()) as { error: string }).error, 'invalid_request');
});

test('favicon and WebSub errors say which URL they serve', async () => {
  const icon = await fetch(`${h.url}/icons/`);
  assert.match(await icon.text(), /^unknown endpoint GET \/icons\/: favicons are GET \/icons\/<feed id>\.<signature>/);
  const wrongMethod = await fetch(`${h.url}/websub/some-token`, { method: 'PUT' });
  assert.equal(wrongMethod.headers.get('allow'), 'GET, HEAD, POST');
  assert.equal(await wrongMethod.text(), '/websub/some-token takes GET or POST, not PUT');
});

test('a request line Node cannot parse still gets an answer in the API shape, then the connection closes', async () => {
  const raw = await new Promise<string>((resolve, reject) => {
    const url = new URL(h.url);
    const s = net.connect(Number(url.port), url.hostname, () =>
      s.write('GET /chat/completions HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
    );
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
  assert.match(raw, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(
    raw,
    /\{"error":\{"message":"The request is not valid HTTP\/1\.1\.","type":"bad_request","code":400\}\}$/,
  );
});

/** Each API's documented error shape, checked on a response. */
const SHAPES = {
  reader: async (res: Response) => {
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await res.text(), /^Error=\S/);
  },
  clientLogin: async (res: Response) => {
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await res.text(), /^Error=\w+\nInfo=.+\n$/);
  },
  oauth: async (res: Response) => {
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
    assert.equal(body.error, 'invalid_request');
  },
  fever: async (res: Response) => {
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.api_version, 3);
    assert.equal(body.auth, 0);
    assert.equal(typeof body.error, 'string');
  },
  web: async (res: Response) => {
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as { error: Record<string, unknown> };
    assert.deepEqual(Object.keys(body), ['error']);
    assert.equal(typeof body.error.code, 'string');
    assert.equal(typeof body.error.message, 'string');
  },
  // Favicons and WebSub callbacks: the plain text their own routes answer with.
  plainText: async (res: Response) => {
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await res.text();
    assert.ok(text.length > 0 && !text.startsWith('{') && !text.startsWith('Error='), text);
  },
  chat: async (res: Response) => {
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as { error: Record<string, unknown> };
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'type']);
    assert.equal(body.error.code, res.status);
  },
};

test('every framework-level error under every API prefix has that API’s documented shape', async () => {
  const big = 'x'.repeat(17 * 1024 * 1024);
  const json = { 'content-type': 'application/json' };
  const cases: [string, keyof typeof SHAPES, number, string, RequestInit?][] = [
    // Unknown paths
    ['/reader/api/0/no/such', 'reader', 404, 'GET'],
    ['/reader/elsewhere', 'reader', 404, 'GET'],
    ['/api/greader.php/nothing', 'reader', 404, 'GET'],
    ['/accounts/nothing', 'clientLogin', 404, 'GET'],
    ['/api/greader.php/accounts/nothing', 'clientLogin', 404, 'GET'],
    ['/oauth2/nothing', 'oauth', 404, 'GET'],
    ['/fever/nothing', 'fever', 404, 'GET'],
    ['/api/fever.php/nothing', 'fever', 404, 'GET'],
    ['/api/v1/nothing', 'web', 404, 'GET'],
    ['/v1/nothing', 'chat', 404, 'GET'],
    // Known paths, wrong method (the chat API answers 404 naming the method: see its README)
    ['/reader/api/0/subscription/edit', 'reader', 405, 'DELETE'],
    ['/accounts/ClientLogin', 'clientLogin', 405, 'DELETE'],
    ['/oauth2/token', 'oauth', 405, 'GET'],
    ['/fever/', 'fever', 405, 'DELETE'],
    ['/api/v1/session', 'web', 405, 'PUT'],
    ['/api/v1/rules/5', 'web', 405, 'PUT'],
    ['/async/chat/completions/abc', 'chat', 404, 'DELETE'],
    ['/chat/completions', 'chat', 404, 'GET'],
    // Bodies too large
    ['/reader/api/0/subscription/edit', 'reader', 413, 'POST', { body: big, headers: { authorization: readerAuth } }],
    ['/accounts/ClientLogin', 'clientLogin', 413, 'POST', { body: big }],
    ['/oauth2/token', 'oauth', 413, 'POST', { body: big }],
    ['/fever/', 'fever', 413, 'POST', { body: big }],
    ['/api/v1/session', 'web', 413, 'POST', { body: big, headers: json }],
    ['/v1/chat/completions', 'chat', 413, 'POST', { body: big, headers: { ...json, ...bearer() } }],
    // Unsupported media types and bad JSON
    ['/api/v1/session', 'web', 415, 'POST', { body: 'abc', headers: { 'content-type': 'image/png' } }],
    ['/chat/completions', 'chat', 415, 'POST', { body: 'abc', headers: { 'content-type': 'image/png', ...bearer() } }],
    ['/api/v1/session', 'web', 400, 'POST', { body: '{"a":', headers: json }],
    ['/accounts/ClientLogin', 'clientLogin', 400, 'POST', { body: '{"a":', headers: json }],
    ['/oauth2/token', 'oauth', 400, 'POST', { body: '{"a":', headers: json }],
    ['/v1/chat/completions', 'chat', 400, 'POST', { body: '{"a":', headers: { ...json, ...bearer() } }],
    // URLs that do not decode
    ['/api/greader.php/reader/api/0/%E0%A4%A', 'reader', 400, 'GET'],
    ['/accounts/%E0%A4%A', 'clientLogin', 400, 'GET'],
    ['/fever/%E0%A4%A', 'fever', 400, 'GET'],
    ['/api/v1/%E0%A4%A', 'web', 400, 'GET'],
    // Favicons and WebSub callbacks
    ['/icons/1.0123456789abcdef', 'plainText', 404, 'GET'],
    ['/icons/', 'plainText', 404, 'GET'],
    ['/icons/1.0123456789abcdef', 'plainText', 405, 'POST'],
    ['/icons/%E0%A4%A', 'plainText', 400, 'GET'],
    [`/icons/${'a'.repeat(300)}`, 'plainText', 414, 'GET'],
    ['/websub/', 'plainText', 404, 'GET'],
    ['/websub/no-such-token', 'plainText', 404, 'GET'],
    ['/websub/no-such-token', 'plainText', 405, 'DELETE'],
    ['/websub/%E0%A4%A', 'plainText', 400, 'GET'],
    [`/websub/${'a'.repeat(300)}`, 'plainText', 414, 'GET'],
    [
      '/websub/no-such-token',
      'plainText',
      413,
      'POST',
      { body: big, headers: { 'content-type': 'application/atom+xml' } },
    ],
  ];
  for (const [path, api, status, method, init] of cases) {
    const res = await fetch(`${h.url}${path}`, { method, ...init });
    assert.equal(res.status, status, `${method} ${path}`);
    await SHAPES[api](res).catch((e: Error) => {
      throw new Error(`${method} ${path}: ${e.message}`);
    });
    if (status === 405 && api !== 'chat') assert.ok(res.headers.get('allow'), `${method} ${path}: Allow header`);
  }
});

test('every answer carries nosniff: a Reader error quoting the request is never read as HTML', async () => {
  const probe = '<script>alert(1)</script>';
  const res = await fetch(`${h.url}/reader/api/0/stream/contents/${encodeURIComponent(probe)}`, {
    headers: { authorization: readerAuth },
  });
  await res.text();
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  for (const path of ['/reader/api/0/token', '/accounts/ClientLogin', '/healthz', '/no/such/path', '/v1/models'])
    assert.equal((await fetch(`${h.url}${path}`)).headers.get('x-content-type-options'), 'nosniff', path);
});
