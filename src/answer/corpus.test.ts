// Extractive answers over real, messy news articles (the shared corpus): whatever the text looks
// like, every quoted sentence is verbatim from the article it cites and every marker is in range.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../runtime/app.ts';
import { testApp } from '../search/testing/fixtures.ts';
import { searchService } from '../search/service.ts';
import { hasNews, loadArticles, readArticles, readQuestions, type NewsQuestion } from './testing/news-corpus.ts';
import { answerService } from './service.ts';
import { quoteVariants } from './engines/extractive-dates.ts';
import { INVISIBLE } from '../text/debris.ts';

const skip = hasNews ? false : 'skipped: ../shared/corpus/news is not present beside the checkout';
let app: App;
let questions: NewsQuestion[] = [];
const idByUrl = new Map<string, number>();

before(async () => {
  if (!hasNews) return;
  app = await testApp();
  const articles = readArticles(180);
  const ids = await loadArticles(app, articles);
  articles.forEach((a, i) => idByUrl.set(a.url, ids[i]));
  questions = readQuestions()
    .filter((q) => q.relevant_urls.filter((u) => idByUrl.has(u)).length >= 5)
    .slice(0, 12);
});
after(async () => {
  await app?.close();
});

// Verbatim but for whitespace and invisible characters (zero-width spaces are never quoted).
const norm = (s: string) => s.replace(INVISIBLE, '').replace(/\s+/g, ' ');

test('corpus answers quote their cited articles verbatim, markers in range', { skip }, async () => {
  assert.ok(questions.length >= 8, `${questions.length} answerable questions`);
  let quoted = 0;
  // Every kind of answer: typed leads, why-passages, dated digests, declines.
  const asked = [
    ...questions.map((q) => q.question),
    'Summarize the news about Delaware',
    'Why did the school board vote?',
  ];
  for (const question of asked) {
    for (const model of ['sonar', 'sonar-pro'] as const) {
      const r = await answerService(app).complete({
        model,
        messages: [{ role: 'user', content: question }],
        scope: { kind: 'instance' },
        filters: {},
        searchContextSize: 'medium',
      });
      for (const url of r.citations) assert.ok(idByUrl.has(url), `${url} is not stored`);
      for (const m of r.content.matchAll(/(?:^|\]|\n)\s*([^\[\]\n]+?)((?:\[\d+\])+)/g)) {
        // A digest item opens with its date ("- **2025-01-03**: "), a quote with its source's day
        // ("3 January 2025: The …"); the verbatim quote follows.
        const sentence = m[1].replace(/^- (\*\*\d{4}-\d\d-\d\d\*\*: )?/, '').trim();
        for (const marker of m[2].matchAll(/\[(\d+)\]/g)) {
          const n = Number(marker[1]);
          assert.ok(n >= 1 && n <= r.citations.length, `[${n}] of ${r.citations.length} in "${question}"`);
          const id = idByUrl.get(r.citations[n - 1])!;
          const article = (await searchService(app).articleTexts([id])).get(id)!;
          const text = norm(article.text);
          assert.ok(
            quoteVariants(sentence).some((q) => text.includes(q)),
            `"${sentence}" is not in ${article.url}`,
          );
          quoted++;
        }
      }
    }
  }
  assert.ok(quoted >= questions.length * 2, `${quoted} quoted sentences`);
});
