// The library-neutral shape between "a parser library read the document" and "we normalise it".
// Each mapper (one per library/format) fills it; normalise-feed.ts turns it into the ParsedFeed model.

export interface RawText {
  value: string;
  /** How to read value: 'html' (markup, possibly escaped in the XML), 'text' (literal), 'xhtml' (inline markup). */
  type: 'html' | 'text' | 'xhtml';
}

export interface RawEntry {
  id: string | null;
  link: string | null;
  title: RawText | null;
  authors: string[];
  published: string | null;
  updated: string | null;
  content: RawText | null;
  summary: RawText | null;
  enclosures: Array<{ url: string; type: string | null; length: number | string | null }>;
  /** Image candidates in priority order (media:content/thumbnail, itunes:image, JSON image …). */
  images: string[];
  categories: string[];
  /** xml:base in scope for this entry, if any (relative to the feed's base). */
  base: string | null;
}

export interface RawFeed {
  format: 'rss' | 'atom' | 'rdf' | 'json';
  title: RawText | null;
  siteUrl: string | null;
  description: RawText | null;
  iconUrl: string | null;
  ttl: number | null;
  authors: string[];
  base: string | null;
  entries: RawEntry[];
}
