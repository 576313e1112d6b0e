import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { HostLimiter } from './concurrency.ts';

/** Fails, instead of hanging until the test's time-out, when `started` never comes. */
const within = (started: Promise<void>, what: string) =>
  Promise.race([started, sleep(5000, undefined, { ref: false }).then(() => assert.fail(`${what} did not start`))]);

/** A task that records when it starts and runs until released. */
function gate(log: string[], name: string) {
  const done = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  return {
    run: () => {
      log.push(name);
      started.resolve();
      return done.promise;
    },
    started: started.promise,
    release: () => done.resolve(),
  };
}

test('a place freed on a host goes to a waiting feed fetch before background pages queued earlier; the host limit holds', async () => {
  const limiter = new HostLimiter(10, 1);
  const log: string[] = [];
  const first = gate(log, 'feed 1');
  const pages = [gate(log, 'page 1'), gate(log, 'page 2')];
  const feed = gate(log, 'feed 2');
  const other = gate(log, 'other host page');
  const runs = [limiter.run('a.example', first.run)];
  await first.started;
  // The teaser check's pages queue first, then the next feed of the refresh.
  runs.push(...pages.map((p) => limiter.run('a.example', p.run, true)));
  runs.push(limiter.run('a.example', feed.run));
  // Another host is not held up by this one's queue.
  runs.push(limiter.run('b.example', other.run, true));
  await other.started;
  assert.deepEqual(log, ['feed 1', 'other host page'], 'one fetch at a time on a.example');
  first.release();
  await within(feed.started, 'feed 2, when feed 1 ended,');
  assert.deepEqual(log, ['feed 1', 'other host page', 'feed 2']);
  feed.release();
  await pages[0]!.started;
  assert.equal(log.length, 4, 'still one at a time');
  pages[0]!.release();
  await pages[1]!.started;
  pages[1]!.release();
  other.release();
  await Promise.all(runs);
  assert.deepEqual(log, ['feed 1', 'other host page', 'feed 2', 'page 1', 'page 2']);
});
