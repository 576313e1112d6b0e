// Plain types shared by the feed pipeline (fetch -> parse -> normalise -> store) and its readers.

/** A parsed, normalised feed: what the parser step hands to the store step. */
export interface ParsedFeed {
  format: 'rss' | 'atom' | 'rdf' | 'json';
  title: string;
  /** Absolute URL of the site (RSS <link>, Atom rel=alternate, JSON home_page_url). */
  siteUrl: string | null;
  description: string | null;
  iconUrl: string | null;
  /** RSS <ttl> in minutes, if given: a lower bound for the refresh interval. */
  ttlMinutes: number | null;
  entries: ParsedEntry[];
  /** The document was not well-formed but was recovered (feedparser's "bozo"). */
  recovered: boolean;
}

export interface Enclosure {
  url: string;
  type: string | null;
  length: number | null;
}

export interface ParsedEntry {
  /** Stable id: guid/id, else link, else a hash of the content. Unique within the feed. */
  guid: string;
  /** Absolute URL of the article, or null. */
  url: string | null;
  /** Plain text (entities decoded once, tags stripped). */
  title: string;
  author: string | null;
  /** Unix seconds; null when the feed gave none (the store uses the crawl time). */
  publishedAt: number | null;
  updatedAt: number | null;
  /** Sanitized HTML with absolute URLs. */
  content: string | null;
  summary: string | null;
  enclosures: Enclosure[];
  imageUrl: string | null;
  categories: string[];
}
