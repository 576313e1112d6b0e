// The news corpus of ../shared/corpus/news (RealTime QA): articles and questions with their
// relevant article URLs, loaded for the search benchmark.
import { readFileSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { escapeHtmlText } from '../../src/text/escape-html.ts';

export interface NewsArticle {
  url: string;
  title: string;
  text: string;
  published: string | null;
}
export interface NewsQuestion {
  id: string;
  date: string;
  question: string;
  relevant_urls: string[];
}

export function newsCorpusDir(shared: string): string | undefined {
  const dir = join(shared, 'corpus/news');
  return existsSync(join(dir, 'questions.jsonl')) ? dir : undefined;
}

export function loadNews(dir: string): { articles: NewsArticle[]; questions: NewsQuestion[] } {
  const lines = (s: string) => s.split('\n').filter((l) => l.trim());
  const articles = lines(gunzipSync(readFileSync(join(dir, 'articles.jsonl.gz'))).toString('utf8')).map(
    (l) => JSON.parse(l) as NewsArticle,
  );
  const questions = lines(readFileSync(join(dir, 'questions.jsonl'), 'utf8')).map((l) => JSON.parse(l) as NewsQuestion);
  return { articles, questions };
}

/** "2025/01/03" or "2025-01-03" -> Unix seconds (UTC midnight); null when absent. */
export function newsDate(s: string | null): number | null {
  if (!s) return null;
  const m = /^(\d{4})[/-](\d{2})[/-](\d{2})/.exec(s);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) / 1000 : null;
}

/** Article text as the feed engine would store it: sanitized HTML, one <p> per paragraph. */
export function articleHtml(text: string): string {
  return text
    .split(/\n+/)
    .filter((p) => p.trim())
    .map((p) => `<p>${escapeHtmlText(p.trim())}</p>`)
    .join('\n');
}
