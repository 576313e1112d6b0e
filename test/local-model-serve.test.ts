// `tidings serve --workers 2` with a local model, as real processes: one model host loads the file
// (only its process maps it; the workers and the supervisor do not), every worker's /readyz names
// that host, answers written through it arrive; and a corrupt file is refused at start-up, logged,
// and the workers answer with the extractive engine and say why in /readyz.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { openApp } from './chat-api-helpers.ts';
import { tempDataDir } from './helpers.ts';
import { request, serveWorkers, workerPids, type Served } from './serve-helper.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { loadFixture } from '../src/answer/testing/articles.ts';
import { nativeRuntimeSkip, tinyModelFile } from '../src/answer/testing/local-model.ts';

const skip = await nativeRuntimeSkip();

async function prepared(): Promise<{ dataDir: string; key: string }> {
  const dataDir = tempDataDir('tidings-local-serve-');
  const app = await openApp(dataDir);
  try {
    const { userId } = await loadFixture(app);
    return { dataDir, key: (await createApiKey(chatStore(app).keys, userId, 'test', 0)).key };
  } finally {
    await app.close();
  }
}

const maps = (pid: number) => readFileSync(`/proc/${pid}/maps`, 'utf8');
const rssKB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

test('--workers 2: one process loads the model, both workers answer through it', { skip }, async () => {
  const file = tinyModelFile();
  const { dataDir, key } = await prepared();
  let s: Served | undefined;
  try {
    s = await serveWorkers(dataDir, 2, {
      TIDINGS_LOG_LEVEL: 'info',
      TIDINGS_LLM_MODEL: file,
      TIDINGS_LLM_THREADS: '1',
      TIDINGS_LLM_CONTEXT_TOKENS: '2048',
    });
    const loaded = await s.waitForLog((l) => l.msg === 'local model loaded (one copy for every worker)');
    assert.equal(loaded.backend, 'cpu');
    assert.equal(loaded.threads, 1);
    assert.equal(typeof loaded.memoryMB, 'number');
    const hostPid = loaded.pid!;
    for (const w of [1, 2]) await s.waitForLog((l) => l.msg === 'worker listening' && l.worker === w);
    const workers = [...workerPids(s).values()];
    assert.equal(workers.length, 2);
    assert.ok(!workers.includes(hostPid) && hostPid !== s.process.pid, 'the model host is a process of its own');
    // Only the host maps the model file: the workers hold no copy of the weights.
    if (process.platform === 'linux') {
      assert.ok(maps(hostPid).includes(file), 'the host maps the model file');
      for (const pid of [...workers, s.process.pid!])
        assert.ok(!maps(pid).includes(file), `process ${pid} maps no model`);
      const rss = Object.fromEntries([hostPid, ...workers].map((p) => [p, rssKB(p)]));
      assert.ok(
        Object.values(rss).every((k) => k > 0),
        JSON.stringify(rss),
      );
    }
    // Each worker's /readyz names the host that holds the model.
    const seen = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const r = await request(`${s.url}/readyz`);
      const b = JSON.parse(r.body);
      assert.equal(b.model.engine, 'local');
      assert.equal(b.model.state, 'ready');
      assert.equal(b.model.pid, hostPid);
      seen.add(b.pid);
    }
    assert.equal(seen.size, 2, 'both workers answered /readyz');
    // An answer written by the host, through each worker.
    const workersAnswering = new Set<number | undefined>();
    for (let i = 0; i < 2; i++) {
      const r = await request(`${s.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({
          model: 'sonar',
          messages: [{ role: 'user', content: 'When will Artemis II launch?' }],
          max_tokens: 16,
          stream: true,
        }),
      });
      assert.equal(r.status, 200, r.body);
      assert.match(r.body, /"finish_reason":"length"/);
      assert.match(r.body, /"completion_tokens":16/);
      workersAnswering.add(r.worker);
    }
    assert.equal(workersAnswering.size, 2);
    assert.equal(await s.stop(), 0);
    // The supervisor waits for the host's exit (and reaps it) before it exits itself.
    assert.ok(!existsSync(`/proc/${hostPid}`), 'the model host stopped with the server');
  } finally {
    if (s && s.process.exitCode === null) await s.stop('SIGKILL');
  }
});

test('a corrupt model file: refused at start-up with the reason, the workers fall back to extractive and /readyz says why', {
  skip,
}, async () => {
  const good = readFileSync(tinyModelFile());
  const file = tinyModelFile({}, 'broken.gguf');
  writeFileSync(file, good.subarray(0, 4096));
  const { dataDir } = await prepared();
  let s: Served | undefined;
  try {
    s = await serveWorkers(dataDir, 2, {
      TIDINGS_LOG_LEVEL: 'info',
      TIDINGS_LLM_MODEL: file,
      TIDINGS_LLM_THREADS: '1',
    });
    const logged = await s.waitForLog(
      (l) => typeof l.msg === 'string' && l.msg.startsWith('the local model could not be loaded'),
    );
    assert.match(String(logged.error), /broken\.gguf/);
    assert.match(logged.msg!, /extractive engine instead/);
    const r = await request(`${s.url}/readyz`);
    assert.equal(r.status, 200, 'the server is ready: it answers with the extractive engine');
    const b = JSON.parse(r.body);
    assert.equal(b.model.engine, 'extractive');
    assert.equal(b.model.state, 'failed');
    assert.match(b.model.error, /cannot load the model file .*broken\.gguf/);
    assert.equal(await s.stop(), 0);
  } finally {
    if (s && s.process.exitCode === null) await s.stop('SIGKILL');
  }
});
