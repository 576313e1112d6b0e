// RawFeed (what a parser library read) -> ParsedFeed (our model): plain-text titles, absolute URLs,
// Unix-second dates, sanitized HTML, stable unique guids, one image per entry.
import { createHash } from 'node:crypto';
import type { Enclosure, ParsedEntry, ParsedFeed } from '../../model/feed.ts';
import { htmlToText } from '../sanitizer/html-to-text.ts';
import { sanitizeHtml } from '../sanitizer/sanitize-html.ts';
import { parseFeedDate } from './parse-date.ts';
import type { RawEntry, RawFeed, RawText } from './raw-feed.ts';
import { resolveBase, resolveUrl } from './resolve-url.ts';

/** Tolerance for entry dates after the crawl time (time-zone mistakes), in seconds. */
const FUTURE_TOLERANCE = 86_400;

export function normaliseFeed(raw: RawFeed, feedUrl: string, recovered: boolean, crawlTime: number | null = null): ParsedFeed {
  const feedBase = resolveBase(raw.base, safeUrl(feedUrl));
  const feedAuthor = raw.authors[0] ?? null;
  const seen = new Set<string>();
  const entries: ParsedEntry[] = [];
  for (const rawEntry of raw.entries) {
    const entry = normaliseEntry(rawEntry, feedBase, feedAuthor);
    if (crawlTime !== null) {
      if (entry.publishedAt !== null && entry.publishedAt > crawlTime + FUTURE_TOLERANCE) entry.publishedAt = crawlTime;
      if (entry.updatedAt !== null && entry.updatedAt > crawlTime + FUTURE_TOLERANCE) entry.updatedAt = crawlTime;
    }
    if (seen.has(entry.guid)) continue; // the same guid twice in one document: the first wins
    seen.add(entry.guid);
    entries.push(entry);
  }
  return {
    format: raw.format,
    title: textOf(raw.title),
    siteUrl: resolveUrl(raw.siteUrl, feedBase),
    description: raw.description ? textOf(raw.description) || null : null,
    iconUrl: resolveUrl(raw.iconUrl, feedBase),
    ttlMinutes: raw.ttl !== null && raw.ttl > 0 ? Math.round(raw.ttl) : null,
    entries,
    recovered,
  };
}

function normaliseEntry(raw: RawEntry, feedBase: string | null, feedAuthor: string | null): ParsedEntry {
  const base = resolveBase(raw.base, feedBase);
  const url = resolveUrl(raw.link, base);
  const content = htmlOf(raw.content, base);
  const summary = raw.summary && raw.summary.value === raw.content?.value ? content : htmlOf(raw.summary, base);
  const title = textOf(raw.title);
  const enclosures: Enclosure[] = [];
  for (const e of raw.enclosures) {
    const encUrl = resolveUrl(e.url, base);
    if (!encUrl || enclosures.some((x) => x.url === encUrl)) continue;
    enclosures.push({ url: encUrl, type: e.type?.trim() || null, length: toLength(e.length) });
  }
  const guid = raw.id?.trim() || url || 'sha256:' + createHash('sha256').update(title).update('\u0000').update(content ?? summary ?? '').digest('hex');
  return {
    guid,
    url,
    title,
    author: raw.authors[0] ? htmlToText(raw.authors[0], { singleLine: true }) || feedAuthor : feedAuthor,
    publishedAt: parseFeedDate(raw.published) ?? parseFeedDate(raw.updated),
    updatedAt: parseFeedDate(raw.updated),
    content,
    summary,
    enclosures,
    imageUrl: pickImage(raw, enclosures, content ?? summary, base),
    categories: [...new Set(raw.categories.map((c) => htmlToText(c, { singleLine: true })).filter(Boolean))],
  };
}

function textOf(t: RawText | null): string {
  if (!t) return '';
  if (t.type === 'text') return t.value.replace(/[ \t\n\r\f\v]+/g, ' ').trim();
  return htmlToText(t.value, { singleLine: true });
}

function htmlOf(t: RawText | null, base: string | null): string | null {
  if (!t) return null;
  const value = t.value.trim();
  if (!value) return null;
  // Escaped text cannot carry markup: no sanitizer pass needed (a third of real-world fragments).
  if (t.type === 'text') return textToHtml(value);
  if (!value.includes('<')) return value.replace(BARE_AMPERSAND, '&amp;').replace(/>/g, '&gt;');
  return sanitizeHtml(value, { baseUrl: base }) || null;
}

const BARE_AMPERSAND = /&(?![a-zA-Z][a-zA-Z0-9]{0,31};|#[0-9]{1,7};|#x[0-9a-fA-F]{1,6};)/g;

function textToHtml(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped.includes('\n') ? escaped.split(/\n{2,}/).map((p) => `<p>${p.replace(/\n/g, '<br>')}</p>`).join('') : escaped;
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
  const imageEnclosure = enclosures.find((e) => e.type?.startsWith('image/') || (!e.type && /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(e.url)));
  if (imageEnclosure) return imageEnclosure.url;
  // The sanitized HTML has absolute URLs already, and no tracking pixels.
  if (!html) return null;
  for (const m of html.matchAll(IMG_SRC)) if (!NOT_AN_ARTICLE_IMAGE.test(m[1]!)) return m[1]!.replace(/&amp;/g, '&');
  return null;
}

function safeUrl(u: string): string | null {
  try {
    return new URL(u).href;
  } catch {
    return null;
  }
}
