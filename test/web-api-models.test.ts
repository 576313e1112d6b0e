// The admin settings' model endpoints (/api/v1/admin/models…) against a real server, with the
// model store in a temporary folder and downloads from a local stand-in for Hugging Face: what is
// in use and what the runtime reports, a pull started from the API and followed by polling, one
// download at a time, refusals, admin-only and CSRF.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from './reader-harness.ts';
import { Browser, setUp } from './web-api-client.ts';
import { ggufBytes, sha256, startModelHub, type ModelHub } from './model-hub.ts';
import { setModelRuntimeStatusSource } from '../src/models/index.ts';

let hub: ModelHub;
before(async () => {
  hub = await startModelHub();
});
after(() => hub.close());

async function harness(): Promise<{ h: Harness; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-web-models-'));
  const h = await startHarness({ modelsDir: dir, modelsHubUrl: hub.base });
  return { h, dir };
}

async function pollUntil(b: Browser, done: (d: any) => boolean, seen: any[] = []): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const r = await b.call('GET', '/admin/models');
    assert.equal(r.status, 200, r.text);
    seen.push(r.json.download);
    if (done(r.json)) return r.json;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`no end of the download: ${JSON.stringify(seen.at(-1))}`);
}

test('admin: the model in use, the runtime, the catalogue; a pull with progress, one at a time', async () => {
  const { h, dir } = await harness();
  try {
    const admin = await setUp(h);
    const first = await admin.call('GET', '/admin/models');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.modelsDir, dir);
    assert.equal(first.json.inUse, null);
    assert.deepEqual(first.json.runtime, { engine: 'extractive', state: 'none' });
    assert.equal(first.json.download, null);
    const qwen3 = first.json.models.find((m: any) => m.name === 'qwen3-1.7b');
    assert.equal(qwen3.thinking, true);
    assert.equal(qwen3.present, false);
    assert.match(qwen3.source, /^hf:bartowski\/Qwen_Qwen3-1\.7B-GGUF\/Qwen_Qwen3-1\.7B-Q8_0\.gguf$/);

    const body = ggufBytes(320_000);
    hub.files.set('slow.gguf', { body, chunkDelayMs: 30 });
    const started = await admin.call('POST', '/admin/models/pull', { source: 'hf:test/slow-GGUF/slow.gguf' });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.json.download.name, 'slow');
    assert.equal(started.json.download.state, 'downloading');
    // One download at a time per machine: a second one is refused while the first runs.
    hub.files.set('other.gguf', { body: ggufBytes(30_000) });
    const second = await admin.call('POST', '/admin/models/pull', { source: 'hf:test/o-GGUF/other.gguf' });
    assert.equal(second.status, 409, second.text);
    assert.equal(second.json.error.code, 'download_in_progress');
    assert.match(second.json.error.message, /another download is running on this machine \(slow, process \d+/);

    const seen: any[] = [];
    const end = await pollUntil(admin, (j) => j.download?.state !== 'downloading', seen);
    assert.equal(end.download.state, 'done', JSON.stringify(end.download));
    assert.ok(
      seen.some((d) => d.state === 'downloading' && d.receivedBytes > 0 && d.receivedBytes < d.totalBytes),
      `progress seen mid-way: ${JSON.stringify(seen.map((d) => d.receivedBytes))}`,
    );
    assert.equal(end.download.totalBytes, body.length);
    assert.deepEqual(end.inUse, { path: join(dir, 'slow.gguf'), name: 'slow' });
    const row = end.models.find((m: any) => m.name === 'slow');
    assert.equal(row.present, true);
    assert.equal(row.selected, true);
    assert.equal(row.sha256, sha256(body));
    assert.equal(row.verifiedBy, 'published');

    // What the runtime reports is shown as it reports it.
    setModelRuntimeStatusSource(async () => ({
      engine: 'local',
      state: 'ready',
      file: join(dir, 'slow.gguf'),
      backend: 'cuda',
      gpuLayers: 29,
      threads: 4,
      contextTokens: 8192,
      memoryBytes: 2_500_000_000,
    }));
    try {
      const withRuntime = await admin.call('GET', '/admin/models');
      assert.equal(withRuntime.json.runtime.backend, 'cuda');
      assert.equal(withRuntime.json.runtime.gpuLayers, 29);
    } finally {
      setModelRuntimeStatusSource(undefined);
    }

    // use, remove
    const notPulled = await admin.call('POST', '/admin/models/use', { name: 'qwen3-8b' });
    assert.equal(notPulled.status, 404);
    assert.match(notPulled.json.error.message, /qwen3-8b is not downloaded yet: run tidings model pull qwen3-8b/);
    const gone = await admin.call('DELETE', '/admin/models/slow');
    assert.equal(gone.status, 204, gone.text);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.gguf')),
      [],
    );
    assert.equal((await admin.call('GET', '/admin/models')).json.inUse, null);
    assert.equal((await admin.call('DELETE', '/admin/models/slow')).status, 404);
  } finally {
    await h.close();
  }
});

test('admin: refusals come back as errors that say what to fix; a corrupt download is reported and deleted', async () => {
  const { h, dir } = await harness();
  try {
    const admin = await setUp(h);
    const empty = await admin.call('POST', '/admin/models/pull', {});
    assert.equal(empty.status, 400);
    assert.equal(empty.json.error.field, 'source');
    const unknown = await admin.call('POST', '/admin/models/pull', { source: 'gpt-5' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.error.code, 'bad_model');
    assert.match(unknown.json.error.message, /no model "gpt-5" in the catalogue/);
    const badHash = await admin.call('POST', '/admin/models/pull', { source: 'qwen3-8b', sha256: 'nope' });
    assert.equal(badHash.status, 400);
    assert.match(badHash.json.error.message, /--sha256 must be 64 hexadecimal digits/);

    hub.files.set('corrupt.gguf', { body: ggufBytes(50_000), linkedSha: 'cd'.repeat(32) });
    const started = await admin.call('POST', '/admin/models/pull', { source: 'hf:test/c-GGUF/corrupt.gguf' });
    assert.equal(started.status, 202, started.text);
    const end = await pollUntil(admin, (j) => j.download?.state !== 'downloading');
    assert.equal(end.download.state, 'failed');
    assert.match(end.download.error, /SHA-256 is [0-9a-f]{64}, the one the source publishes is cdcd.*deleted/);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('corrupt')),
      [],
    );
    assert.equal(end.inUse, null);
  } finally {
    await h.close();
  }
});

test('a download stopped (Stop, or the server closing) keeps its part; the next pull resumes it', async () => {
  const { h, dir } = await harness();
  const body = ggufBytes(640_000);
  hub.files.set('long.gguf', { body, chunkDelayMs: 30 });
  let closed = false;
  try {
    const admin = await setUp(h);
    const started = await admin.call('POST', '/admin/models/pull', { source: 'hf:test/l-GGUF/long.gguf' });
    assert.equal(started.status, 202, started.text);
    await pollUntil(admin, (j) => j.download.receivedBytes > 100_000);
    // Stop, then start again: the second pull resumes the first's part.
    const stop = await admin.call('POST', '/admin/models/cancel', {});
    assert.equal(stop.status, 202, stop.text);
    const stopped = await pollUntil(admin, (j) => j.download?.state !== 'downloading');
    assert.equal(stopped.download.state, 'failed');
    assert.match(stopped.download.error, /download cancelled at .*pull it again to resume/);
    assert.equal((await admin.call('POST', '/admin/models/cancel', {})).status, 404);
    const partSize = statSync(join(dir, 'long.gguf.part')).size;
    hub.requests.length = 0;
    assert.equal((await admin.call('POST', '/admin/models/pull', { source: 'hf:test/l-GGUF/long.gguf' })).status, 202);
    await pollUntil(admin, (j) => j.download.receivedBytes > partSize + 50_000);
    assert.equal(hub.requests.find((r) => r.path === '/cdn/long.gguf')?.range, `bytes=${partSize}-`);
    await h.close();
    closed = true;
    const part = readdirSync(dir).find((f) => f === 'long.gguf.part');
    assert.ok(part, `the part stays: ${readdirSync(dir).join(', ')}`);
    assert.ok(!readdirSync(dir).includes('long.gguf'));
    assert.ok(!readdirSync(dir).includes('download.lock'), 'the lock is released');
  } finally {
    if (!closed) await h.close();
  }
  const again = await startHarness({ modelsDir: dir, modelsHubUrl: hub.base });
  try {
    const admin = await setUp(again);
    const before = (await admin.call('GET', '/admin/models')).json.download;
    assert.equal(before.state, 'failed');
    assert.match(before.error, /download stopped.*run the same pull again to resume/);
    hub.requests.length = 0;
    hub.files.set('long.gguf', { body });
    assert.equal((await admin.call('POST', '/admin/models/pull', { source: 'hf:test/l-GGUF/long.gguf' })).status, 202);
    const end = await pollUntil(admin, (j) => j.download?.state !== 'downloading');
    assert.equal(end.download.state, 'done', JSON.stringify(end.download));
    assert.match(hub.requests.find((r) => r.path === '/cdn/long.gguf')?.range ?? '', /^bytes=[1-9]\d+-$/);
    assert.equal(end.models.find((m: any) => m.name === 'long').sha256, sha256(body));
  } finally {
    await again.close();
  }
});

test('admin only, and changes need the CSRF token', async () => {
  const { h } = await harness();
  try {
    const admin = await setUp(h);
    await admin.call('POST', '/admin/users', { username: 'bob', password: 'bobs password' });
    const bob = new Browser(h.url);
    await bob.call('POST', '/session', { username: 'bob', password: 'bobs password' });
    assert.equal((await bob.call('GET', '/admin/models')).status, 403);
    assert.equal((await bob.call('POST', '/admin/models/pull', { source: 'qwen3-8b' })).status, 403);
    assert.equal((await new Browser(h.url).call('GET', '/admin/models')).status, 401);
    const cookieOnly = new Browser(h.url);
    cookieOnly.cookie = admin.cookie;
    const noCsrf = await cookieOnly.call('POST', '/admin/models/pull', { source: 'qwen3-8b' });
    assert.equal(noCsrf.status, 403);
    assert.equal(noCsrf.json.error.code, 'csrf');
    const crossSite = await admin.call('DELETE', '/admin/models/x', undefined, { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.json.error.code, 'cross_origin');
  } finally {
    await h.close();
  }
});
