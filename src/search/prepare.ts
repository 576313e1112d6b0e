// What indexing an item costs in JavaScript, apart from the store: its text extracted and split
// into passages, its words counted per term and field. Pure, so that it runs on a worker thread
// (prepare-worker.ts) while the main thread writes the previous batch, or on the main thread
// before the write transaction opens (indexing.ts, PrepareAhead); either way the write transaction
// only files the counts under document numbers and stores them.
import type { IndexedItem, SearchItemSource } from '../store/repositories.ts';
import { htmlToText } from '../text/html-to-text.ts';
import { countArticle, type CountedArticle } from './index-batch.ts';
import { splitPassages, wordCount } from './passages.ts';

/** An item ready to be written to the index. */
export interface PreparedItem {
  id: number;
  /** Undefined: the item has no text at all (never indexed; an earlier version is removed). */
  article?: {
    item: IndexedItem;
    passages: { text: string; words: number }[];
    counted: CountedArticle;
  };
}

export function prepareItem(src: SearchItemSource): PreparedItem {
  const parts = itemPassages(src);
  if (!parts.length) return { id: src.id };
  const item = indexedItem(src);
  return {
    id: src.id,
    article: {
      item,
      passages: parts.map((text) => ({ text, words: wordCount(text) })),
      counted: countArticle({ title: item.title, body: parts.join('\n'), url: src.url }),
    },
  };
}

/** The passages of an item: its body text (content, else summary) split into a few sentences each. */
export function itemPassages(src: Pick<SearchItemSource, 'content' | 'summary' | 'title'>): string[] {
  const body = htmlToText(src.content || src.summary || '');
  const passages = splitPassages(body);
  // An item with no body (a link post) is still findable by its title.
  return passages.length ? passages : src.title ? [src.title] : [];
}

export function indexedItem(src: SearchItemSource): IndexedItem {
  return {
    id: src.id,
    feedId: src.feedId,
    host: hostOf(src.url) ?? hostOf(src.feedSiteUrl) ?? hostOf(src.feedUrl) ?? '',
    title: htmlToText(src.title, { singleLine: true }),
    publishedAt: src.publishedAt,
    updatedAt: src.updatedAt,
  };
}

export function hostOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '') || undefined;
  } catch {
    return undefined;
  }
}
