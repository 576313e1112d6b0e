// Related questions over the real-world feeds of ../shared/corpus/feeds/real-world (served over
// HTTP, imported with `tidings opml import`, fetched with `tidings refresh`): what a new user asks,
// and none of the follow-ups nobody would ask (issue 23 saw "What is the latest on Web?",
// "How is April 5 connected to Elon Musk?", "What is the latest on Testing?" …). Fewer, or none,
// rather than nonsense.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { answerService } from '../src/answer/service.ts';
import { hasShared, SKIP_NO_SHARED } from './helpers.ts';
import { REAL_WORLD_ENV, realWorldDataDir } from './real-world-feeds.ts';

/** Follow-ups the built-in engine proposed over these feeds before issue 23, each nonsense. */
const BAD = [
  'What is the latest on Web?',
  'What is the latest on Testing?',
  'What is the latest on December 2021?',
  'What is the latest on Maintenance Release?',
  'What is the latest on Developers?',
  'What is the latest on MacRumors.com Discuss?',
  'What is the latest on Related Roundup?',
  'What is the latest on Changes?',
  'What is the latest on Fix?',
  'What is the latest on Fix PostProcess?',
  'What is the latest on I’ve?',
  'What is behind the report "Node.js Cluster and Express"?',
  'What is behind the report "build(deps): bump github.com/evanw/esbuild from 0.14.39 to 0.14.42"?',
];
/** Shapes of nonsense: a date, a month, a weekday as the subject; a name spanning sentences. */
const BAD_SHAPES = [
  /latest on (?:January|February|March|April|May|June|July|August|September|October|November|December)\b/,
  /latest on (?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\?/,
  /How is \w+ \d+ connected/,
  /latest on [^?"]*[.!;] /,
];

const QUESTIONS = [
  'What did NASA announce?',
  'What did Elon Musk do?',
  'What is happening in Ukraine?',
  'What is new in WordPress?',
  'What did Apple release?',
  'What happened at the Masters?',
  'What is new in Hugo?',
  'What happened in Bucha?',
  'What is new on the web?',
  'What did Sky News report?',
];

let dir: string | undefined;
let close: (() => void) | undefined;
let app: App | undefined;

before(async () => {
  if (!hasShared) return;
  ({ dir, close } = await realWorldDataDir('tidings-related-'));
  app = await createApp(
    loadConfig({ env: REAL_WORLD_ENV, overrides: { dataDir: dir, schedulerEnabled: false, logLevel: 'error' } }),
  );
});

after(async () => {
  await app?.close();
  close?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('related questions over real feeds read like what a person asks next, never the known nonsense', {
  skip: SKIP_NO_SHARED,
}, async () => {
  const all: string[] = [];
  for (const q of QUESTIONS) {
    const r = await answerService(app!).complete({
      model: 'sonar',
      messages: [{ role: 'user', content: q }],
      scope: { kind: 'instance' },
      filters: {},
      searchContextSize: 'medium',
      returnRelatedQuestions: true,
    });
    const related = r.relatedQuestions ?? [];
    assert.ok(related.length <= 4, `${q}: at most 4`);
    for (const x of related) {
      assert.match(x, /^(What|How|Who|Where|When|Why) .+\?$/, `${q}: ${x}`);
      all.push(`${q} -> ${x}`);
    }
  }
  const text = all.join('\n');
  for (const bad of BAD) assert.ok(!all.some((l) => l.endsWith(`-> ${bad}`)), `"${bad}" was proposed:\n${text}`);
  for (const shape of BAD_SHAPES) assert.doesNotMatch(text, shape);
  // Not silence either: the big stories still lead somewhere.
  assert.ok(all.length >= 15, `only ${all.length} related questions:\n${text}`);
});
