// A fetched web page reduced to its readable article text. @mozilla/readability is Firefox
// Reader View's extraction (maintained, handles the long tail of site layouts); linkedom gives it
// a DOM without a browser, much lighter than jsdom.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { htmlToText } from '../../text/html-to-text.ts';

export interface ReadablePage {
  title: string;
  siteName: string | null;
  /** Plain text, paragraphs separated by line breaks. */
  text: string;
  publishedTime: string | null;
}

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

export function readablePage(html: string): ReadablePage | undefined {
  const { document } = parseHTML(html);
  const article = new Readability(document as unknown as ReadabilityDocument, { charThreshold: 200 }).parse();
  if (article?.content) {
    const text = htmlToText(article.content);
    if (text)
      return {
        title: article.title ?? '',
        siteName: article.siteName ?? null,
        text,
        publishedTime: article.publishedTime ?? null,
      };
  }
  // Pages Readability cannot make sense of (short, odd layouts): fall back to the body text.
  const text = htmlToText(document.body?.innerHTML ?? '');
  if (!text) return undefined;
  return { title: document.title ?? '', siteName: null, text, publishedTime: null };
}
