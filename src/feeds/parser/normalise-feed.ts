// RawFeed (what a parser library read) -> ParsedFeed (our model): plain-text titles, absolute URLs,
// Unix-second dates, sanitized HTML, stable unique guids, one image per entry.
import { createHash } from 'node:crypto';
import type { Enclosure, ParsedEntry, ParsedFeed } from '../../model/parsed-feed.ts';
import { htmlToText } from '../../text/html-to-text.ts';
import { sanitizeHtmlBatch } from '../sanitizer/sanitize-html.ts';
import { parseFeedDate } from './parse-date.ts';
import type { RawEntry, RawFeed, RawText } from './raw-feed.ts';
import { resolveBase, resolveUrl } from './resolve-url.ts';
import { capFeedFields, capGuid } from './field-limits.ts';
import { escapeHtmlText } from '../../text/escape-html.ts';

/** Tolerance for entry dates after the crawl time (time-zone mistakes), in seconds. */
const FUTURE_TOLERANCE = 86_400;

export function normaliseFeed(
  raw: RawFeed,
  feedUrl: string,
  recovered: boolean,
  crawlTime: number | null = null,
): ParsedFeed {
  const feedBase = resolveBase(raw.base, safeUrl(feedUrl));
  const feedAuthor = raw.authors[0] ?? null;
  const seen = new Set<string>();
  const entries: ParsedEntry[] = [];
  const html = new HtmlJobs();
  for (const rawEntry of raw.entries) {
    const entry = normaliseEntry(rawEntry, feedBase, raw.base !== null, feedAuthor, seen, html);
    if (!entry) continue; // the same guid twice in one document: the first wins
    if (crawlTime !== null) {
      if (entry.publishedAt !== null && entry.publishedAt > crawlTime + FUTURE_TOLERANCE) entry.publishedAt = crawlTime;
      if (entry.updatedAt !== null && entry.updatedAt > crawlTime + FUTURE_TOLERANCE) entry.updatedAt = crawlTime;
    }
    entries.push(entry);
  }
  html.run();
  return capFeedFields({
    format: raw.format,
    title: textOf(raw.title),
    siteUrl: resolveUrl(raw.siteUrl, feedBase),
    description: raw.description ? textOf(raw.description) || null : null,
    iconUrl: resolveUrl(raw.iconUrl, feedBase),
    ttlMinutes: raw.ttl !== null && raw.ttl > 0 ? Math.round(raw.ttl) : null,
    entries,
    recovered,
  });
}

/** Null when an entry with the same guid came earlier in the document. */
function normaliseEntry(
  raw: RawEntry,
  feedBase: string | null,
  feedHasXmlBase: boolean,
  feedAuthor: string | null,
  seen: Set<string>,
  html: HtmlJobs,
): ParsedEntry | null {
  const base = resolveBase(raw.base, feedBase);
  const url = resolveUrl(raw.link, base);
  // Relative links and images in the content: against xml:base (the entry's, else the
  // document's), else the entry's own page, else the feed URL, as Miniflux does. A root-relative
  // image in a feed served from a CDN or feed host belongs to the article's site, not the feed's.
  const contentBase = raw.base !== null || feedHasXmlBase ? base : (url ?? base);
  const title = textOf(raw.title);
  // Hashed from the raw text, so a change of sanitizer policy never changes an entry's identity.
  const guid =
    capGuid(raw.id?.trim() || url || '') ||
    'sha256:' +
      createHash('sha256')
        .update(raw.title?.value ?? '')
        .update('\u0000')
        .update(raw.content?.value ?? raw.summary?.value ?? '')
        .digest('hex');
  if (seen.has(guid)) return null;
  seen.add(guid);
  const enclosures: Enclosure[] = [];
  for (const e of raw.enclosures) {
    const encUrl = resolveUrl(e.url, base);
    if (!encUrl || enclosures.some((x) => x.url === encUrl)) continue;
    enclosures.push({ url: encUrl, type: e.type?.trim() || null, length: toLength(e.length) });
  }
  const entry: ParsedEntry = {
    guid,
    url,
    title,
    author: raw.authors[0] ? htmlToText(raw.authors[0], { singleLine: true }) || feedAuthor : feedAuthor,
    publishedAt: parseFeedDate(raw.published) ?? parseFeedDate(raw.updated),
    updatedAt: parseFeedDate(raw.updated),
    content: null,
    summary: null,
    enclosures,
    imageUrl: null,
    categories: [...new Set(raw.categories.map((c) => htmlToText(c, { singleLine: true })).filter(Boolean))],
  };
  const sameText = raw.summary !== null && raw.summary.value === raw.content?.value;
  html.add(raw.content, contentBase, (value) => {
    entry.content = value;
    if (sameText) entry.summary = value;
  });
  if (!sameText) html.add(raw.summary, contentBase, (value) => (entry.summary = value));
  html.afterRun(() => (entry.imageUrl = pickImage(raw, enclosures, entry.content ?? entry.summary, contentBase)));
  return entry;
}

/**
 * Content and summary of all entries are sanitized together at the end (one sanitizer call per
 * base URL instead of one per fragment, see sanitizeHtmlBatch); text and tag-free fragments need
 * no sanitizer at all.
 */
class HtmlJobs {
  private byBase = new Map<string | null, Array<{ markup: string; done: (html: string | null) => void }>>();
  private after: Array<() => void> = [];

  add(t: RawText | null, base: string | null, done: (html: string | null) => void): void {
    const value = t?.value.trim();
    if (!t || !value) {
      done(null);
      return;
    }
    // Escaped text cannot carry markup (a third of real-world fragments).
    if (t.type === 'text') {
      done(textToHtml(value));
      return;
    }
    if (!value.includes('<')) {
      done(value.replace(BARE_AMPERSAND, '&amp;').replace(/>/g, '&gt;'));
      return;
    }
    let jobs = this.byBase.get(base);
    if (!jobs) this.byBase.set(base, (jobs = []));
    jobs.push({ markup: value, done });
  }

  /** Not named then(): a class with then() is a thenable, and `await` would call it. */
  afterRun(fn: () => void): void {
    this.after.push(fn);
  }

  run(): void {
    for (const [base, jobs] of this.byBase) {
      const out = sanitizeHtmlBatch(
        jobs.map((j) => j.markup),
        { baseUrl: base },
      );
      jobs.forEach((j, i) => j.done(out[i] || null));
    }
    for (const fn of this.after) fn();
  }
}

function textOf(t: RawText | null): string {
  if (!t) return '';
  if (t.type === 'text') return t.value.replace(/[ \t\n\r\f\v]+/g, ' ').trim();
  return htmlToText(t.value, { singleLine: true });
}

const BARE_AMPERSAND = /&(?![a-zA-Z][a-zA-Z0-9]{0,31};|#[0-9]{1,7};|#x[0-9a-fA-F]{1,6};)/g;

function textToHtml(text: string): string {
  const escaped = escapeHtmlText(text);
  return escaped.includes('\n')
    ? escaped
        .split(/\n{2,}/)
        .map((p) => `<p>${p.replace(/\n/g, '<br>')}</p>`)
        .join('')
    : escaped;
}

function toLength(value: number | string | null): number | null {
  if (value === null || value === '') return null;
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
}

const IMG_SRC = /<img\b[^>]*?\bsrc\s*=\s*["']([^"']+)["']/gi;
/** Share buttons (FeedBurner "feedflare") are images too, but never the article's picture. */
const NOT_AN_ARTICLE_IMAGE = /\/~ff\/|\/feedflare\//i;

function pickImage(raw: RawEntry, enclosures: Enclosure[], html: string | null, base: string | null): string | null {
  for (const candidate of raw.images) {
    const u = resolveUrl(candidate, base);
    if (u && /^https?:/i.test(u)) return u;
  }
  const imageEnclosure = enclosures.find(
    (e) => e.type?.startsWith('image/') || (!e.type && /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(e.url)),
  );
  if (imageEnclosure) return imageEnclosure.url;
  // The sanitized HTML has absolute URLs already, and no tracking pixels.
  if (!html) return null;
  for (const m of html.matchAll(IMG_SRC)) if (!NOT_AN_ARTICLE_IMAGE.test(m[1]!)) return m[1]!.replace(/&amp;/g, '&');
  return null;
}

/** The feed's own URL as a base, when it is an http(s) URL. */
function safeUrl(u: string): string | null {
  return resolveUrl(u, null);
}
