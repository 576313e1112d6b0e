// The server's main thread loads heavy libraries only when it uses them (BENCHMARKS.md, Memory):
// the feed parser and sanitizer run on parse workers, Readability only for full text and web
// search, the tokenizer only to count answer tokens, the OpenAI client only with an upstream LLM,
// pino-pretty only for human-readable logs, undici only once a feed is fetched. A static import of
// any of them would quietly add its heap to every idle server; this starts one and lists the
// packages it loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDataDir } from './helpers.ts';

const LAZY = [
  'feedsmith',
  'sanitize-html',
  'linkedom',
  '@mozilla/readability',
  'gpt-tokenizer',
  'openai',
  'pino-pretty',
];

test('an idle server has not loaded the parser, sanitizer, Readability, tokenizer, LLM client, pretty logger or HTTP client', {
  timeout: 120_000,
}, () => {
  // Records every module URL loaded (module.registerHooks runs in this thread, before the app).
  const hook = `data:text/javascript,${encodeURIComponent(
    "import { registerHooks } from 'node:module'; globalThis.loadedUrls = new Set(); registerHooks({ load(url, ctx, next) { globalThis.loadedUrls.add(url); return next(url, ctx); } });",
  )}`;
  const script = `
    const { loadConfig } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/config/config.ts')).href)});
    const { createApp } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/app.ts')).href)});
    const { startServer } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/http/server.ts')).href)});
    const { startScheduler } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/feeds/scheduler/scheduler.ts')).href)});
    const { silentLogger } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/log/logger.ts')).href)});
    const config = loadConfig({ env: { TIDINGS_DATA: ${JSON.stringify(tempDataDir())}, TIDINGS_PORT: '0', TIDINGS_HOST: '127.0.0.1' } });
    const app = await createApp(config, silentLogger);
    const { url } = await startServer(app);
    startScheduler(app);
    await (await fetch(url + '/healthz')).text();
    await (await fetch(url + '/metrics')).text();
    await app.close();
    const packages = new Set([...globalThis.loadedUrls].map((u) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(u)?.[1]).filter(Boolean));
    console.log(JSON.stringify([...packages]));
  `;
  const r = spawnSync(process.execPath, ['--import', hook, '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  assert.equal(r.status, 0, r.stderr);
  const loaded: string[] = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.ok(loaded.includes('fastify'), `the hook saw the server's packages: ${loaded.join(', ')}`);
  assert.deepEqual(
    LAZY.filter((p) => loaded.includes(p)),
    [],
  );
});
