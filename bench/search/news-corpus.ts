// The news corpus of ../shared/corpus/news (RealTime QA): articles and questions with their
// relevant article URLs, loaded for the search benchmark with the readers the answer tests use.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  readArticles,
  readQuestions,
  type NewsArticle,
  type NewsQuestion,
} from '../../src/answer/testing/news-corpus.ts';

export { articleHtml, type NewsArticle, type NewsQuestion } from '../../src/answer/testing/news-corpus.ts';

export function newsCorpusDir(shared: string): string | undefined {
  const dir = join(shared, 'corpus/news');
  return existsSync(join(dir, 'questions.jsonl')) ? dir : undefined;
}

export function loadNews(dir: string): { articles: NewsArticle[]; questions: NewsQuestion[] } {
  return { articles: readArticles(Number.POSITIVE_INFINITY, dir), questions: readQuestions(dir) };
}

/** "2025/01/03" or "2025-01-03" -> Unix seconds (UTC midnight); null when absent. */
export function newsDate(s: string | null): number | null {
  if (!s) return null;
  const m = /^(\d{4})[/-](\d{2})[/-](\d{2})/.exec(s);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) / 1000 : null;
}
