// Every file of the shared feed corpus either parses into a ParsedFeed or fails with a FeedParseError:
// never another exception, never a hang (each parse is timed; the whole run has a test timeout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED, SKIP_NO_SHARED } from '../../../test/helpers.ts';
import { FeedParseError, parseFeed } from './parse-feed.ts';

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (!name.endsWith('.md')) out.push(p);
  }
  return out;
}

test('every corpus feed parses or fails cleanly', { skip: SKIP_NO_SHARED, timeout: 60_000 }, () => {
  const files = walk(join(SHARED, 'corpus/feeds'));
  assert.ok(files.length > 2000, `expected the whole corpus, found ${files.length} files`);
  let parsed = 0,
    withEntries = 0,
    refused = 0,
    slowest = 0,
    slowestFile = '';
  const crashes: string[] = [];
  for (const file of files) {
    const started = performance.now();
    try {
      const feed = parseFeed(readFileSync(file), { url: 'https://corpus.example/feed.xml' });
      parsed++;
      if (feed.entries.length) withEntries++;
      for (const e of feed.entries) assert.ok(e.guid, `${file}: an entry without guid`);
    } catch (err) {
      if (err instanceof FeedParseError) refused++;
      else crashes.push(`${file}: ${(err as Error).stack?.split('\n').slice(0, 3).join(' | ')}`);
    }
    const ms = performance.now() - started;
    if (ms > slowest) [slowest, slowestFile] = [ms, file];
  }
  console.log(
    `corpus: ${files.length} files, ${parsed} parsed (${withEntries} with entries), ${refused} refused cleanly; slowest ${slowest.toFixed(0)} ms (${slowestFile.split('/feeds/')[1]})`,
  );
  assert.deepEqual(crashes, []);
  assert.ok(slowest < 5000, `a single feed took ${slowest.toFixed(0)} ms: ${slowestFile}`);
});

test('the real-world and spec-example feeds all yield entries', { skip: SKIP_NO_SHARED }, () => {
  for (const dir of ['real-world', 'spec-examples']) {
    for (const file of walk(join(SHARED, 'corpus/feeds', dir))) {
      const feed = parseFeed(readFileSync(file), { url: 'https://corpus.example/feed.xml' });
      assert.ok(feed.entries.length > 0, `${file} has no entries`);
      assert.ok(
        feed.entries.every((e) => e.title || e.content || e.summary),
        `${file}: an entry with neither title nor content`,
      );
    }
  }
});

test('mutated corpus feeds (truncated, corrupted bytes, stray "<", cut ranges) never crash', {
  skip: SKIP_NO_SHARED,
  timeout: 60_000,
}, () => {
  const sources = ['real-world', 'edge-cases', 'spec-examples']
    .flatMap((d) => walk(join(SHARED, 'corpus/feeds', d)))
    .map((f) => readFileSync(f));
  let seed = 20261122; // fixed: the same mutations on every run
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const crashes: string[] = [];
  for (let n = 0; n < 150; n++) {
    let bytes = Buffer.from(sources[Math.floor(random() * sources.length)]!);
    const kind = n % 4;
    if (kind === 0) bytes = bytes.subarray(0, Math.floor(random() * bytes.length));
    else if (kind === 1)
      for (let k = 0; k < 20; k++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
    else {
      const s = bytes.toString('latin1');
      const i = Math.floor(random() * s.length),
        j = Math.floor(random() * s.length);
      bytes = Buffer.from(
        kind === 2 ? s.slice(0, i) + '<' + s.slice(i) : s.slice(0, Math.min(i, j)) + s.slice(Math.max(i, j)),
        'latin1',
      );
    }
    try {
      parseFeed(bytes, { url: 'https://corpus.example/feed.xml' });
    } catch (err) {
      if (!(err instanceof FeedParseError))
        crashes.push(`mutation ${n} (kind ${kind}): ${(err as Error).stack?.split('\n').slice(0, 3).join(' | ')}`);
    }
  }
  assert.deepEqual(crashes, []);
});
