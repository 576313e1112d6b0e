// The model store and `tidings model pull|list|use|remove`, against a local HTTP server on
// 127.0.0.1 that plays Hugging Face (a /resolve/ redirect carrying X-Linked-ETag, Range requests,
// a connection cut mid-file). The "models" are files with a valid GGUF header and random bytes:
// the store checks the format, not whether a model loads (the runtime's tests load real ones).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, runCli } from './helpers.ts';
import { ggufBytes, sha256 as sha, startModelHub, type ModelHub } from './model-hub.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { type ModelError, modelsDir, pullModel, selectedModelFile, useModel } from '../src/models/index.ts';
import { defaultModelsDir } from '../src/models/store.ts';

let hub: ModelHub;
let base = '';
let files: ModelHub['files'];
let requests: ModelHub['requests'];
before(async () => {
  hub = await startModelHub();
  ({ base, files, requests } = hub);
});
after(() => hub.close());

function store() {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-models-'));
  const data = mkdtempSync(join(tmpdir(), 'tidings-models-data-'));
  const env = {
    TIDINGS_MODELS_DIR: dir,
    TIDINGS_MODELS_HUB_URL: base,
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
    TIDINGS_DATA: data,
    TIDINGS_LLM_MODEL: '',
  };
  const config = (over: Partial<Config> = {}): Config =>
    loadConfig({
      env: {},
      overrides: { dataDir: data, modelsDir: dir, modelsHubUrl: base, allowPrivateNetworks: true, ...over },
    });
  return { dir, env, config };
}

test('model pull hf:… downloads through the redirect, shows progress, checks the published SHA-256 and selects the model', async () => {
  const body = ggufBytes(300_000);
  files.set('tiny-a.gguf', { body });
  const { dir, env, config } = store();
  const r = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-a.gguf'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /pulling hf:test\/tiny-GGUF\/tiny-a\.gguf: .*of 293\.0 KiB \(100%\), .*\/s/);
  assert.match(r.stderr, /SHA-256 checked against the source's published hash/);
  assert.match(r.stdout, new RegExp(`pulled tiny-a .*sha256 ${sha(body)}`));
  assert.deepEqual(readFileSync(join(dir, 'tiny-a.gguf')), body);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('.part')),
    [],
  );
  const list = await runCli(['model', 'list', '--json'], env);
  const parsed = JSON.parse(list.stdout);
  const row = parsed.models.find((m: { name: string }) => m.name === 'tiny-a');
  assert.equal(row.present, true);
  assert.equal(row.selected, true);
  assert.equal(parsed.inUse.path, join(dir, 'tiny-a.gguf'));
  assert.equal(selectedModelFile(config())?.name, 'tiny-a');
  // The catalogue is listed too, with what a user chooses by.
  const cat = parsed.models.find((m: { name: string }) => m.name === 'qwen3-1.7b');
  assert.equal(cat.present, false);
  assert.equal(cat.thinking, true);
  assert.ok(cat.memoryBytes > cat.sizeBytes);
  const again = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-a.gguf'], env);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already in/);
});

test('a download cut mid-way keeps its .part, and the next pull resumes it with a Range request', async () => {
  const body = ggufBytes(400_000);
  files.set('tiny-cut.gguf', { body, cutAfter: 150_000 });
  const { dir, env } = store();
  const first = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-cut.gguf'], env);
  assert.equal(first.code, 1);
  assert.match(first.stderr, /interrupted at .* of 390\.6 KiB .*run the same pull again to resume/);
  assert.ok(!existsSync(join(dir, 'tiny-cut.gguf')), 'no final file after an interrupted download');
  const partSize = statSync(join(dir, 'tiny-cut.gguf.part')).size;
  assert.ok(partSize > 0 && partSize <= 150_000, `part has ${partSize} bytes`);
  assert.equal(selectedModelFile(loadConfig({ env: {}, overrides: { modelsDir: dir } })), undefined);

  requests.length = 0;
  const second = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-cut.gguf'], env);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, /resuming tiny-cut at/);
  const cdnRequest = requests.find((q) => q.path === '/cdn/tiny-cut.gguf');
  assert.equal(cdnRequest?.range, `bytes=${partSize}-`);
  assert.ok(cdnRequest?.ifRange, 'If-Range carries the ETag of the first attempt');
  assert.deepEqual(readFileSync(join(dir, 'tiny-cut.gguf')), body);
  assert.ok(!existsSync(join(dir, 'tiny-cut.gguf.part')));
});

test('a file whose SHA-256 differs from the published one is refused and deleted', async () => {
  files.set('tiny-bad.gguf', { body: ggufBytes(100_000), linkedSha: 'ab'.repeat(32) });
  const { dir, env, config } = store();
  const r = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-bad.gguf'], env);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /SHA-256 is [0-9a-f]{64}, the one the source publishes is abab.*The file was deleted/);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('tiny-bad')),
    [],
  );
  assert.equal(selectedModelFile(config()), undefined);
  // --sha256 for a URL: the given hash is checked.
  const body = ggufBytes(50_000);
  files.set('tiny-url.gguf', { body, linkedSha: '' });
  const wrong = await runCli(['model', 'pull', `${base}/cdn/tiny-url.gguf`, '--sha256', '0'.repeat(64)], env);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /the --sha256 given is 0{64}/);
  const right = await runCli(['model', 'pull', `${base}/cdn/tiny-url.gguf`, '--sha256', sha(body)], env);
  assert.equal(right.code, 0, right.stderr);
  assert.match(right.stderr, /SHA-256 checked against --sha256/);
  const bad = await runCli(['model', 'pull', `${base}/cdn/tiny-url.gguf`, '--sha256', 'xyz'], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--sha256 must be 64 hexadecimal digits/);
});

test('a source that publishes no hash: size and GGUF header checked, and the user is told', async () => {
  files.set('tiny-nohash.gguf', { body: ggufBytes(60_000), linkedSha: '' });
  const { env } = store();
  const r = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-nohash.gguf'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /publishes no SHA-256 .*checked its size and GGUF header only/);
});

test('not a GGUF file (a web page) is refused at its first bytes and nothing is kept', async () => {
  const page = Buffer.from('<!doctype html><html><body>' + 'x'.repeat(5000) + '</body></html>');
  files.set('page.gguf', { body: page, linkedSha: '', contentType: 'text/html' });
  const { dir, env } = store();
  const r = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/page.gguf'], env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /is not a GGUF model file: it does not start with the GGUF magic bytes .*looks like a web page/,
  );
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('page')),
    [],
  );
});

test('too little free disk space is refused before anything is written', async () => {
  files.set('tiny-big.gguf', { body: ggufBytes(200_000) });
  const { dir, config } = store();
  await assert.rejects(
    pullModel('hf:test/tiny-GGUF/tiny-big.gguf', config(), { freeBytes: async () => 100_000 }),
    (e: ModelError) =>
      e.code === 'disk' && /not enough disk space in .* needs 195\.3 KiB more .* 97\.7 KiB is free/.test(e.message),
  );
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('tiny-big')),
    [],
  );
  // Enough space: the same pull goes through.
  const m = await pullModel('hf:test/tiny-GGUF/tiny-big.gguf', config(), { freeBytes: async () => 10 * 1024 ** 3 });
  assert.equal(m.sizeBytes, 200_000);
  assert.equal(m.verifiedBy, 'published');
});

test('bad references, the SSRF guard and the one-download lock give clear errors', async () => {
  const { dir, env, config } = store();
  for (const [ref, message] of [
    ['nosuchmodel', /no model "nosuchmodel" in the catalogue \(qwen2\.5-0\.5b, /],
    ['hf:owner/repo', /not an hf: reference: write hf:<owner>\/<repo>\/<file>\.gguf/],
    ['hf:owner/repo/README.md', /does not name a \.gguf file/],
    ['https://example.org/model.bin', /does not end in a \.gguf file name/],
    [
      'https://huggingface.co/o/r/blob/main/m.gguf',
      /web page of the file; download it from https:\/\/huggingface\.co\/o\/r\/resolve\/main\/m\.gguf/,
    ],
    ['./here.gguf', /looks like a file on this machine: nothing to download, run tidings model use/],
  ] as const) {
    const r = await runCli(['model', 'pull', ref], env);
    assert.equal(r.code, 2, `${ref}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  files.set('tiny-ssrf.gguf', { body: ggufBytes(30_000) });
  await assert.rejects(
    pullModel('hf:test/tiny-GGUF/tiny-ssrf.gguf', config({ allowPrivateNetworks: false })),
    /refusing to fetch loopback address 127\.0\.0\.1 \(set TIDINGS_ALLOW_PRIVATE_NETWORKS=true to allow\)/,
  );
  // A machine offline: the hub's name does not resolve. The user named a model, not a URL.
  const offline = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-ssrf.gguf'], {
    ...env,
    TIDINGS_MODELS_HUB_URL: 'http://hub.invalid',
  });
  assert.equal(offline.code, 1, offline.stderr);
  assert.match(
    offline.stderr,
    /cannot resolve host name hub\.invalid: is this machine online\? \(TIDINGS_MODELS_HUB_URL names a mirror/,
  );
  assert.doesNotMatch(offline.stderr, /check the URL/);
  // A store that cannot be made (its parent is a file).
  const own = join(mkdtempSync(join(tmpdir(), 'tidings-file-')), 'a-file');
  writeFileSync(own, 'not a folder');
  const readOnly = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-ssrf.gguf'], {
    ...env,
    TIDINGS_MODELS_DIR: join(own, 'models'),
  });
  assert.equal(readOnly.code, 1);
  assert.match(
    readOnly.stderr,
    /cannot write to the model store .*\(ENOTDIR\): set TIDINGS_MODELS_DIR to a folder this user can write/,
  );
  // Another live process holds the lock (this test's own pid stands for it).
  writeFileSync(
    join(dir, 'download.lock'),
    JSON.stringify({
      pid: process.pid,
      host: hostname(),
      name: 'other',
      file: 'o.gguf',
      startedAt: 'now',
    }),
  );
  await assert.rejects(
    pullModel('hf:test/tiny-GGUF/tiny-ssrf.gguf', config()),
    (e: ModelError) =>
      e.code === 'busy' && /another download is running on this machine \(other, process/.test(e.message),
  );
  // A lock left by a dead process is taken over.
  writeFileSync(
    join(dir, 'download.lock'),
    JSON.stringify({
      pid: 2 ** 22 + 12345,
      host: hostname(),
      name: 'dead',
      file: 'd.gguf',
      startedAt: 'then',
    }),
  );
  const m = await pullModel('hf:test/tiny-GGUF/tiny-ssrf.gguf', config());
  assert.equal(m.name, 'tiny-ssrf');
  assert.ok(!existsSync(join(dir, 'download.lock')));
});

test('model use, model remove, and which file selectedModelFile returns', async () => {
  files.set('tiny-u1.gguf', { body: ggufBytes(40_000) });
  files.set('tiny-u2.gguf', { body: ggufBytes(40_000) });
  const { dir, env, config } = store();
  for (const f of ['tiny-u1', 'tiny-u2'])
    assert.equal((await runCli(['model', 'pull', `hf:test/tiny-GGUF/${f}.gguf`], env)).code, 0);
  // The last pulled is selected.
  assert.equal(selectedModelFile(config())?.name, 'tiny-u2');
  const use = await runCli(['model', 'use', 'tiny-u1'], env);
  assert.equal(use.code, 0, use.stderr);
  assert.equal(selectedModelFile(config())?.name, 'tiny-u1');
  // TIDINGS_LLM_MODEL naming a pulled model wins over the selection; a name that is not pulled
  // (an Ollama model name, say) does not hide it.
  assert.equal(selectedModelFile(config({ llmModel: 'tiny-u2' }))?.name, 'tiny-u2');
  assert.equal(selectedModelFile(config({ llmModel: 'llama3.1:8b' }))?.name, 'tiny-u1');
  // A path to a .gguf wins over both; a missing one means no model, not another one.
  const own = join(mkdtempSync(join(tmpdir(), 'tidings-own-')), 'mine.gguf');
  writeFileSync(own, ggufBytes(10_000));
  assert.deepEqual(selectedModelFile(config({ llmModel: own })), { path: own, name: 'mine' });
  assert.equal(selectedModelFile(config({ llmModel: own + '.missing.gguf' })), undefined);
  const r = await useModel(config({ llmModel: 'tiny-u2' }), own);
  assert.equal(r.overriddenBy, 'tiny-u2');
  assert.deepEqual(selectedModelFile(config()), { path: own, name: 'mine' });
  // A stored file that is not the verified size (truncated on disk) is never returned.
  assert.equal((await runCli(['model', 'use', 'tiny-u2'], env)).code, 0);
  writeFileSync(join(dir, 'tiny-u2.gguf'), ggufBytes(1000));
  assert.equal(selectedModelFile(config()), undefined);
  const broken = await runCli(['model', 'use', 'tiny-u2'], env);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /missing or incomplete .*run tidings model pull hf:test\/tiny-GGUF\/tiny-u2\.gguf again/);
  // Bad input to use.
  const notGguf = join(dirOf(own), 'notes.gguf');
  writeFileSync(notGguf, 'hello there, not a model at all');
  for (const [arg, message] of [
    ['qwen3-8b', /qwen3-8b is not downloaded yet: run tidings model pull qwen3-8b/],
    ['whatever', /no model "whatever" in .* and it is not a path to a \.gguf file/],
    ['/nope/x.gguf', /no file \/nope\/x\.gguf/],
    [
      notGguf,
      /notes\.gguf is not a GGUF model file: it does not start with the GGUF magic bytes \(it starts with "hello there, not"\)/,
    ],
  ] as const) {
    const u = await runCli(['model', 'use', arg], env);
    assert.equal(u.code, 1, `${arg}: ${u.stderr}`);
    assert.match(u.stderr, message);
  }
  // A model being downloaded cannot be removed under the download.
  writeFileSync(
    join(dir, 'download.lock'),
    JSON.stringify({ pid: process.pid, host: hostname(), name: 'tiny-u2', file: 'tiny-u2.gguf', startedAt: 'now' }),
  );
  const busy = await runCli(['model', 'remove', 'tiny-u2'], env);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /tiny-u2 is being downloaded \(process \d+\); wait for it or stop it first/);
  rmSync(join(dir, 'download.lock'));
  // Remove: the file goes, and so does the selection when it pointed there.
  assert.equal((await runCli(['model', 'use', 'tiny-u1'], env)).code, 0);
  const rm = await runCli(['model', 'remove', 'tiny-u1'], env);
  assert.equal(rm.code, 0, rm.stderr);
  assert.match(rm.stdout, /removed tiny-u1 \(39\.1 KiB freed\)/);
  assert.ok(!existsSync(join(dir, 'tiny-u1.gguf')));
  assert.equal(selectedModelFile(config()), undefined);
  const again = await runCli(['model', 'remove', 'tiny-u1'], env);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /no model "tiny-u1" in .*see tidings model list/);
  const text = await runCli(['model', 'list'], env);
  assert.match(text.stdout, /answers use: no model \(quotes from the articles\); tidings model pull/);
  assert.match(text.stdout, /qwen3-8b .* thinking .*Apache-2\.0/);
});

const dirOf = (p: string) => p.slice(0, p.lastIndexOf('/'));

test('a pull is stopped by `model cancel` from another process, and by Ctrl-C; each time the part stays and is resumed', async () => {
  const body = ggufBytes(800_000);
  files.set('tiny-stop.gguf', { body, chunkDelayMs: 40 });
  const { dir, env } = store();
  const part = join(dir, 'tiny-stop.gguf.part');
  const startPull = () => {
    const p = spawn(
      process.execPath,
      [join(ROOT, 'bin/tidings.js'), 'model', 'pull', 'hf:test/tiny-GGUF/tiny-stop.gguf'],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<{ code: number | null; stderr: string }>((r) =>
      p.on('close', (code) => r({ code, stderr })),
    );
    return { p, exited };
  };
  const partGrows = async (beyond: number) => {
    for (let i = 0; i < 400; i++) {
      if (existsSync(part) && statSync(part).size > beyond) return statSync(part).size;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the download did not start');
  };
  const none = await runCli(['model', 'cancel'], env);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no download is running/);

  const first = startPull();
  await partGrows(50_000);
  const cancel = await runCli(['model', 'cancel'], env);
  assert.equal(cancel.code, 0, cancel.stderr);
  assert.match(cancel.stdout, /asked the download of tiny-stop \(process \d+\) to stop/);
  const r1 = await first.exited;
  assert.equal(r1.code, 1);
  assert.match(r1.stderr, /download cancelled at .*pull it again to resume/);
  const kept = statSync(part).size;

  const second = startPull();
  await partGrows(kept + 50_000);
  second.p.kill('SIGINT');
  const r2 = await second.exited;
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /resuming tiny-stop at/);
  assert.match(r2.stderr, /download stopped at .*run the same pull again to resume/);
  assert.ok(!existsSync(join(dir, 'download.lock')), 'Ctrl-C releases the lock');

  files.set('tiny-stop.gguf', { body });
  const done = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-stop.gguf'], env);
  assert.equal(done.code, 0, done.stderr);
  assert.deepEqual(readFileSync(join(dir, 'tiny-stop.gguf')), body);
});

test('the store is the user cache folder unless TIDINGS_MODELS_DIR names one', {
  skip: process.platform !== 'linux' && 'Linux paths',
}, () => {
  assert.equal(defaultModelsDir({ XDG_CACHE_HOME: '/var/cache/me' }), '/var/cache/me/tidings/models');
  assert.equal(defaultModelsDir({ HOME: '/home/x' }), join(homedir(), '.cache', 'tidings', 'models'));
  assert.equal(defaultModelsDir({ TIDINGS_MODELS_DIR: '/srv/models', XDG_CACHE_HOME: '/c' }), '/srv/models');
  // The setting wins over the environment; the tests' own store is not the user's.
  assert.equal(modelsDir(loadConfig({ env: {}, overrides: { modelsDir: '/data/m' } })), '/data/m');
  assert.ok(!modelsDir(loadConfig({ env: {} })).startsWith(join(homedir(), '.cache')));
});

test('a part that already holds the whole file (stopped before the rename) is checked and put in place', async () => {
  const body = ggufBytes(70_000);
  files.set('tiny-whole.gguf', { body });
  const { dir, env } = store();
  writeFileSync(join(dir, 'tiny-whole.gguf.part'), body);
  writeFileSync(
    join(dir, 'tiny-whole.gguf.part.json'),
    JSON.stringify({
      url: `${base}/test/tiny-GGUF/resolve/main/tiny-whole.gguf`,
      etag: null,
      totalBytes: body.length,
      publishedSha256: sha(body),
    }),
  );
  requests.length = 0;
  const r = await runCli(['model', 'pull', 'hf:test/tiny-GGUF/tiny-whole.gguf'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(requests.find((q) => q.path === '/cdn/tiny-whole.gguf')?.range, `bytes=${body.length}-`);
  assert.match(r.stderr, /SHA-256 checked against the source's published hash/);
  assert.deepEqual(readFileSync(join(dir, 'tiny-whole.gguf')), body);
});
