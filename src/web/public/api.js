// Calls to /api/v1 with the session cookie and the CSRF header; errors become ApiError with the
// server's message (which says what to fix).

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

let csrfToken = '';
let onSignedOut = () => {};

export function setCsrfToken(t) {
  csrfToken = t || '';
}
/** Called when a request finds the session gone (expired, signed out elsewhere). */
export function onSessionEnded(fn) {
  onSignedOut = fn;
}

async function request(method, path, body, opts = {}) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let payload;
  if (typeof body === 'string') {
    payload = body;
    headers['content-type'] = 'text/xml';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  let res;
  try {
    res = await fetch('api/v1' + path, {
      method,
      headers,
      body: payload,
      credentials: 'same-origin',
      signal: opts.signal,
    });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'cannot reach the server: check the connection and try again');
  }
  if (opts.raw) {
    if (!res.ok) await fail(res, path);
    return res;
  }
  if (res.status === 204) return null;
  const ct = res.headers.get('content-type') || '';
  if (!res.ok) await fail(res, path);
  return ct.includes('json') ? res.json() : res.text();
}

async function fail(res, path) {
  let err = { code: 'http_' + res.status, message: `request failed (${res.status})` };
  try {
    err = (await res.json()).error || err;
  } catch {
    /* not JSON */
  }
  if (res.status === 401 && path !== '/session') onSignedOut(err);
  throw new ApiError(res.status, err.code, err.message, err.field);
}

export const api = {
  get: (p, o) => request('GET', p, undefined, o),
  post: (p, b, o) => request('POST', p, b === undefined ? {} : b, o),
  patch: (p, b) => request('PATCH', p, b),
  put: (p, b) => request('PUT', p, b),
  del: (p) => request('DELETE', p),
};

/** POST that answers Server-Sent Events: calls onEvent for each parsed `data:` JSON. */
export async function postStream(path, body, onEvent, signal) {
  const res = await request('POST', path, body, { raw: true, signal });
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const chunk = buf.slice(0, i);
      buf = buf.slice(i + 2);
      for (const line of chunk.split('\n')) if (line.startsWith('data: ')) onEvent(JSON.parse(line.slice(6)));
    }
  }
}
