// `tidings refresh` opens the database as a batch workload (on SQLite: a 16 MB page cache, half the
// server's), which kept a 1,000-feed first refresh under its 350 MB budget (BENCHMARKS.md, Memory);
// the App passes the workload on to the store; a server's large refresh pass switches its store to
// it for the pass. The connection settings themselves are checked in
// src/store/sqlite/workload.test.ts. (RSS is not asserted: it would be flaky.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProgram } from '../src/cli/main.ts';
import { CliError, type AppOptions, type CliContext } from '../src/cli/context.ts';
import { createApp } from '../src/server/create-app.ts';
import { SINGLE_PROCESS } from '../src/runtime/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { testSql } from '../src/store/testing.ts';
import { tempDataDir } from './helpers.ts';
import { importOpml } from '../src/feeds/opml/import-export.ts';
import { LARGE_PASS_FEEDS, refreshDue } from '../src/feeds/refresh.ts';
import type { Store, StoreWorkload } from '../src/store/open-store.ts';
import { heapKeptCompact } from '../src/runtime/startup-garbage.ts';

/** SQLite's page cache size on the store's connection (negative: KiB). */
const cacheSize = async (store: Store) =>
  (await testSql(store).prepare('PRAGMA cache_size').get<{ cache_size: number }>())!.cache_size;

/** The options each command of argv asks ctx.app() for (the App is never opened). */
async function appOptionsOf(...argv: string[]): Promise<AppOptions[]> {
  const asked: AppOptions[] = [];
  const ctx: CliContext = {
    app: async (opts = {}) => {
      asked.push(opts);
      throw new CliError('stop here');
    },
    config: () => {
      throw new Error('not needed');
    },
    out: () => {},
  };
  const program = await buildProgram(ctx, argv[0]);
  await assert.rejects(program.parseAsync(['node', 'tidings', ...argv]), /stop here/);
  return asked;
}

test('tidings refresh asks for a batch workload; feed list keeps the default', async () => {
  assert.deepEqual(await appOptionsOf('refresh'), [{ workload: 'batch' }]);
  assert.deepEqual(await appOptionsOf('refresh', '--all'), [{ workload: 'batch' }]);
  assert.equal((await appOptionsOf('feed', 'list', 'alice'))[0]?.workload, undefined);
});

test("the App opens its store with the process's workload", async (t) => {
  const config = loadConfig({ env: {}, overrides: { dataDir: tempDataDir(), schedulerEnabled: false } });
  const app = await createApp(config, silentLogger, { ...SINGLE_PROCESS, workload: 'batch' });
  t.after(() => app.close());
  if (app.store.backend !== 'sqlite') return t.skip('the workload only changes SQLite settings');
  assert.equal(await cacheSize(app.store), -16384);
});

test('a large refresh pass runs with the store set for a batch workload and a compact heap, a small one does not', async (t) => {
  const config = loadConfig({ env: {}, overrides: { dataDir: tempDataDir(), schedulerEnabled: false } });
  const app = await createApp(config, silentLogger);
  t.after(() => app.close());
  const user = (await app.users.create('alice', 'x')).id;
  const opml = (from: number, to: number) =>
    `<?xml version="1.0"?><opml version="2.0"><body>${Array.from(
      { length: to - from },
      (_, k) => `<outline type="rss" text="f${from + k}" xmlUrl="http://127.0.0.1:9/f${from + k}.xml"/>`,
    ).join('')}</body></opml>`;
  const store = app.store;
  const asked: { workload: StoreWorkload; cache?: number; compactHeap: boolean }[] = [];
  const withWorkload = store.withWorkload.bind(store);
  store.withWorkload = (workload, fn) =>
    withWorkload(workload, async () => {
      asked.push({
        workload,
        cache: store.backend === 'sqlite' ? await cacheSize(store) : undefined,
        compactHeap: heapKeptCompact(),
      });
      return fn();
    });
  // An aborted pass lists the due feeds and fetches none of them.
  const aborted = AbortSignal.abort();
  await importOpml(app, user, opml(0, LARGE_PASS_FEEDS - 1));
  await refreshDue(app, { signal: aborted });
  assert.deepEqual(asked, [], 'a pass of fewer feeds keeps the serving settings');
  await importOpml(app, user, opml(LARGE_PASS_FEEDS - 1, LARGE_PASS_FEEDS));
  await refreshDue(app, { signal: aborted });
  assert.deepEqual(asked, [
    { workload: 'batch', cache: store.backend === 'sqlite' ? -16384 : undefined, compactHeap: true },
  ]);
  assert.equal(heapKeptCompact(), false, "V8's own heap growing is back after the pass");
  if (store.backend === 'sqlite') {
    assert.equal(await cacheSize(store), -32768, 'the serving settings are back after the pass');
  }
});
