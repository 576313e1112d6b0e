import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { authenticate } from '../src/auth/authenticate.ts';
import { authStore } from '../src/auth/repositories.ts';
import { hashToken } from '../src/auth/passwords.ts';
import { startFixture, PASSWORD, type Fixture } from './auth-fixture.ts';
import { testSql } from '../src/store/testing.ts';

let f: Fixture;
before(async () => {
  f = await startFixture({ loginFailuresPerMinute: 3 });
});
after(async () => f.close());

function parseLoginBody(body: string): Record<string, string> {
  return Object.fromEntries(
    body
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

for (const prefix of ['', '/api/greader.php']) {
  test(`ClientLogin at ${prefix}/accounts/ClientLogin: form POST, query GET, both give a working token`, async () => {
    const post = await fetch(`${f.base}${prefix}/accounts/ClientLogin`, {
      method: 'POST',
      body: new URLSearchParams({ Email: 'alice', Passwd: PASSWORD }),
    });
    assert.equal(post.status, 200);
    assert.match(post.headers.get('content-type')!, /^text\/plain/);
    const body = await post.text();
    const lines = body.split('\n');
    assert.equal(lines[1], 'LSID=null');
    assert.match(lines[2], /^Auth=/, 'Auth on the third line');
    assert.ok(body.endsWith('\n'));
    const { Auth: token, SID } = parseLoginBody(body);
    assert.equal(SID, token);
    assert.match(token, /^[^=&\s]+$/);
    const auth = await authenticate(f.app, `GoogleLogin auth=${token}`);
    assert.equal(auth?.userId, f.userId);
    assert.equal(auth?.via, 'clientlogin');

    const get = await fetch(
      `${f.base}${prefix}/accounts/ClientLogin?Email=alice&Passwd=${encodeURIComponent(PASSWORD)}`,
    );
    assert.equal(get.status, 200);
    const token2 = parseLoginBody(await get.text()).Auth;
    assert.notEqual(token2, token, 'each login is its own revocable session');
    assert.ok(await authenticate(f.app, `GoogleLogin auth=${token2}`));
  });

  test(`ClientLogin at ${prefix}/accounts/ClientLogin: wrong password 401, missing parameters 400`, async () => {
    const bad = await fetch(`${f.base}${prefix}/accounts/ClientLogin`, {
      method: 'POST',
      body: new URLSearchParams({ Email: 'alice', Passwd: 'wrong' }),
    });
    assert.equal(bad.status, 401);
    assert.equal((await bad.text()).trim(), 'Error=BadAuthentication');
    const unknown = await fetch(`${f.base}${prefix}/accounts/ClientLogin`, {
      method: 'POST',
      body: new URLSearchParams({ Email: 'nobody', Passwd: 'x' }),
    });
    assert.equal(unknown.status, 401);
    for (const body of [{ Email: 'alice' }, { Passwd: PASSWORD }, {}] as Record<string, string>[]) {
      const res = await fetch(`${f.base}${prefix}/accounts/ClientLogin`, {
        method: 'POST',
        body: new URLSearchParams(body),
      });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(await res.text(), /^Error=\w+\nInfo=.*(Email|Passwd)/);
    }
  });
}

test('ClientLogin accepts a form body sent with a wrong content type (text/plain)', async () => {
  const res = await fetch(`${f.base}/accounts/ClientLogin`, {
    method: 'POST',
    body: `Email=alice&Passwd=${encodeURIComponent(PASSWORD)}`,
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(res.status, 200);
  assert.match(await res.text(), /\nAuth=\S+\n$/);
});

test('only the token hash is stored; revoking the token makes it fail', async () => {
  const res = await fetch(`${f.base}/accounts/ClientLogin`, {
    method: 'POST',
    body: new URLSearchParams({ Email: 'alice', Passwd: PASSWORD, client: 'TestReader' }),
  });
  const token = parseLoginBody(await res.text()).Auth;
  const stored = await authStore(f.app).tokens.findByHash(hashToken(token));
  assert.ok(stored);
  assert.equal(stored.label, 'ClientLogin TestReader');
  const raw = (await testSql(f.app)
    .prepare('SELECT count(*) AS n FROM auth_tokens WHERE token_hash = ? OR label LIKE ?')
    .get(token, `%${token}%`)) as { n: number };
  assert.equal(raw.n, 0, 'the token itself is nowhere in the database');
  assert.ok(await authenticate(f.app, `GoogleLogin auth=${token}`));
  await authStore(f.app).tokens.revoke(stored.id, Math.floor(Date.now() / 1000));
  assert.equal(await authenticate(f.app, `GoogleLogin auth=${token}`), null);
});

test('repeated failed logins for one account from one address are throttled with 429', async () => {
  const body = () => new URLSearchParams({ Email: 'alice', Passwd: 'guess' });
  // loginFailuresPerMinute is 3 in this fixture; earlier tests may already have failed for alice.
  let last = 0;
  for (let i = 0; i < 6; i++)
    last = (await fetch(`${f.base}/accounts/ClientLogin`, { method: 'POST', body: body() })).status;
  assert.equal(last, 429);
  const blocked = await fetch(`${f.base}/accounts/ClientLogin`, {
    method: 'POST',
    body: new URLSearchParams({ Email: 'alice', Passwd: PASSWORD }),
  });
  assert.equal(blocked.status, 429, 'the right password does not help while throttled');
  assert.ok(Number(blocked.headers.get('retry-after')) > 0);
  assert.match(await blocked.text(), /^Error=/);
});
