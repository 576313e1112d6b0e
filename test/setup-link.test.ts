// The first-run setup link of `tidings serve --workers 2`, with real processes: one link, printed
// once by the supervisor, accepted by every worker until the first account is created with it,
// then by none. Runs on the backend the suite runs on (SQLite file; PostgreSQL with
// TIDINGS_TEST_DATABASE_URL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDataDir } from './helpers.ts';
import { request, serveWorkers, type PlainResponse, type Served } from './serve-helper.ts';

const setup = (url: string, body: Record<string, string>) =>
  request(`${url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Sends `send` on new connections until each of the `workers` slots has answered once; the answers by slot. */
async function onEveryWorker(workers: number, send: () => Promise<PlainResponse>): Promise<Map<number, PlainResponse>> {
  const by = new Map<number, PlainResponse>();
  for (let i = 0; i < 20 * workers && by.size < workers; i++) {
    const r = await send();
    assert.ok(r.worker, 'every answer names its worker');
    if (!by.has(r.worker)) by.set(r.worker, r);
  }
  assert.equal(by.size, workers, 'every worker answered');
  return by;
}

const setupUrls = (s: Served) =>
  s.lines.flatMap((l) => {
    try {
      const rec = JSON.parse(l) as { setupUrl?: string; worker?: number };
      return rec.setupUrl ? [rec] : [];
    } catch {
      return [];
    }
  });

test('--workers 2: one setup link, printed once by the supervisor, valid on both workers until used', async () => {
  const dataDir = tempDataDir('tidings-setup-');
  let s = await serveWorkers(dataDir, 2, { TIDINGS_WORKER_BALANCING: 'round-robin' });
  try {
    const first = await s.waitForLog((l) => typeof l.setupUrl === 'string');
    for (const w of [1, 2]) await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === w);
    const printed = setupUrls(s);
    assert.equal(printed.length, 1, `one setup link in the log, not one per process:\n${s.lines.join('\n')}`);
    assert.equal(printed[0]!.worker, undefined, 'the supervisor prints it, not a worker');

    // A restart before the link is used prints a fresh link that replaces it (only its hash is kept).
    await s.stop();
    s = await serveWorkers(dataDir, 2, { TIDINGS_WORKER_BALANCING: 'round-robin' });
    const link = String((await s.waitForLog((l) => typeof l.setupUrl === 'string')).setupUrl);
    assert.notEqual(link, first.setupUrl);
    assert.equal(setupUrls(s).length, 1);
    const secret = new URL(link).hash.replace(/^#setup=/, '');
    assert.ok(secret.length >= 20, link);
    assert.ok(link.startsWith(`${s.url}/#setup=`), `${link} opens this server`);

    const stale = await setup(s.url, {
      secret: String(first.setupUrl).split('#setup=')[1]!,
      username: 'admin',
      password: 'correct horse',
    });
    assert.equal(stale.status, 403, 'the link of the earlier start was replaced');
    assert.equal(JSON.parse(stale.body).error.code, 'bad_setup_link');

    // Every worker knows the secret: each refuses only the too-short password, not the link.
    const opened = await onEveryWorker(2, () => setup(s.url, { secret, username: 'admin', password: 'short' }));
    for (const [w, r] of opened) {
      assert.equal(r.status, 400, `worker ${w}: ${r.body}`);
      assert.match(JSON.parse(r.body).error.message, /password/, `worker ${w}: ${r.body}`);
    }

    const created = await setup(s.url, { secret, username: 'admin', password: 'correct horse' });
    assert.equal(created.status, 200, created.body);
    assert.equal(JSON.parse(created.body).user.isAdmin, true);

    // Used up: neither worker takes it again.
    const after = await onEveryWorker(2, () => setup(s.url, { secret, username: 'eve', password: 'correct horse' }));
    for (const [w, r] of after) {
      assert.equal(r.status, 409, `worker ${w}: ${r.body}`);
      assert.equal(JSON.parse(r.body).error.code, 'already_set_up');
    }
    const session = await request(`${s.url}/api/v1/session`);
    assert.equal(JSON.parse(session.body).setupRequired, false);
  } finally {
    await s.stop();
  }
  // With an account, a start prints no link.
  s = await serveWorkers(dataDir, 2);
  try {
    for (const w of [1, 2]) await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === w);
    assert.deepEqual(setupUrls(s), []);
  } finally {
    await s.stop();
  }
});
