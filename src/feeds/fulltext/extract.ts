// An article page reduced to its readable part, as sanitized HTML: @mozilla/readability (Firefox
// Reader View's extraction) over a linkedom DOM, then the feed sanitizer, with the page URL as
// base for relative links. And a web search result's page reduced to its readable text
// (readablePage, for src/search/web/searxng.ts). Both run on a parse worker (parse-pool): the
// page is remote content.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import iconv from 'iconv-lite';
import { sanitizeHtml } from '../sanitizer/sanitize-html.ts';
import { htmlToText } from '../../text/html-to-text.ts';

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

/** Shorter than this (characters of text) is not an article: a paywall stub, a consent wall. */
export const MIN_ARTICLE_CHARS = 200;

export interface ExtractedArticle {
  html: string;
  textLength: number;
}

/** Decodes a page by its declared charset (header, else <meta>), UTF-8 by default. */
export function decodeHtml(body: Buffer, contentType: string | null): string {
  let charset = /charset=["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  if (!charset) {
    const head = body.subarray(0, 4096).toString('latin1');
    charset = /<meta[^>]+charset=["']?([\w-]+)/i.exec(head)?.[1];
  }
  const name = (charset ?? 'utf-8').toLowerCase();
  if (name === 'utf-8' || name === 'utf8' || !iconv.encodingExists(name)) return body.toString('utf8');
  return iconv.decode(body, name);
}

export function extractArticle(html: string, pageUrl: string): ExtractedArticle | undefined {
  const { document } = parseHTML(html);
  const article = new Readability(document as unknown as ReadabilityDocument, { charThreshold: 300 }).parse();
  if (!article?.content) return undefined;
  const clean = sanitizeHtml(article.content, { baseUrl: pageUrl });
  const textLength = htmlToText(clean).length;
  if (textLength < MIN_ARTICLE_CHARS) return undefined;
  return { html: clean, textLength };
}

/** A fetched web page reduced to its readable article text (web search results). */
export interface ReadablePage {
  title: string;
  siteName: string | null;
  /** Plain text, paragraphs separated by line breaks. */
  text: string;
  publishedTime: string | null;
}

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
