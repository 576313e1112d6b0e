// An article's indexed text from (id, title, url, passage text) rows ordered by id then passage
// order, shared by the SQLite and PostgreSQL repositories. A null text is a stored item without
// passages (not indexed yet): present, with empty text.
import type { ArticleText } from '../repositories.ts';

export function collectArticleTexts(rows: [number, string, string, string | null][]): Map<number, ArticleText> {
  const parts = new Map<number, { title: string; url: string; texts: string[] }>();
  for (const [id, title, url, text] of rows) {
    let article = parts.get(id);
    if (!article) parts.set(id, (article = { title, url, texts: [] }));
    if (text !== null) article.texts.push(text);
  }
  const out = new Map<number, ArticleText>();
  for (const [id, a] of parts) out.set(id, articleText(a.title, a.url, a.texts));
  return out;
}

/** An article's text for answers: its passages in order, a blank line between them. */
export function articleText(title: string, url: string, passages: string[]): ArticleText {
  return { title, url, text: passages.join('\n\n') };
}
