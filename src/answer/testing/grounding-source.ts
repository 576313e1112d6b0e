// A numbered source as the answer pipeline hands it to an engine, built from a title and one text:
// for engine tests that need no index (src/answer/engines/*.test.ts).
import type { GroundingSource } from '../engines/engine.ts';

/** Noon UTC of an ISO date, in Unix seconds. */
export const noonOf = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;

/** Source [n] at https://news.example/n, published at noon of `date`, whose one passage is `text`. */
export function groundingSource(n: number, title: string, text: string, date = '2025-02-05'): GroundingSource {
  return {
    n,
    hit: {
      itemId: n,
      url: `https://news.example/${n}`,
      title,
      sourceName: 'News',
      publishedAt: noonOf(date),
      updatedAt: null,
      passages: [{ text, score: 1 }],
      score: 1,
      imageUrl: null,
      origin: 'local',
    },
    texts: [text],
  };
}
