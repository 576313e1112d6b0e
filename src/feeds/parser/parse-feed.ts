// The parse step of the feed pipeline: bytes (as fetched) -> ParsedFeed (normalised, sanitized).
//   decode charset -> refuse hostile XML -> parse with the library -> map -> normalise.
// Library choice: see the measurement notes in BENCHMARKS.md (## Feed parsing).
import { DetectError, MalformedError, ParseError, parseFeed as feedsmithParse } from 'feedsmith';
import { XMLValidator } from 'fast-xml-parser';
import type { ParsedFeed } from '../../model/feed.ts';
import { decodeFeedBody } from '../encoding/decode-feed-body.ts';
import { FeedParseError } from './feed-parse-error.ts';
import { mapFeedsmith } from './map-feedsmith.ts';
import { normaliseFeed } from './normalise-feed.ts';
import type { RawFeed } from './raw-feed.ts';
import { refuseHostileXml } from './refuse-hostile-xml.ts';
import { promoteLegacyContent } from './promote-legacy-content.ts';
import { repairXml } from './repair-xml.ts';

export { FeedParseError } from './feed-parse-error.ts';

export interface ParseFeedOptions {
  /** The feed's URL: the base for relative links when the document has no xml:base. */
  url: string;
  /** The HTTP Content-Type header, for its charset. */
  contentType?: string | null;
  /** When the feed was fetched (Unix seconds); reserved for date sanity checks. */
  crawlTime?: number;
}

export function parseFeed(body: Buffer | string, opts: ParseFeedOptions): ParsedFeed {
  const decoded = decodeFeedBody(body, opts.contentType);
  const text = decoded.text.replace(/^[\s\u0000]+/, '');
  if (!text) throw new FeedParseError('empty document');

  let value: unknown = text;
  let recovered = decoded.mismatch;
  if (text.startsWith('{')) {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new FeedParseError(`not a feed: invalid JSON (${(err as Error).message})`);
    }
  } else {
    if (!text.startsWith('<')) throw new FeedParseError('not a feed: the document is neither XML nor JSON');
    refuseHostileXml(text);
    if (looksLikeHtmlPage(text)) throw new FeedParseError('not a feed: looks like an HTML page');
    // Not well-formed: rewrite it well-formed first (like a browser would read it) and flag it.
    let xml = text;
    if (XMLValidator.validate(xml) !== true) {
      xml = repairXml(xml);
      recovered = true;
    }
    value = promoteLegacyContent(xml);
  }

  let raw: RawFeed;
  try {
    raw = mapFeedsmith(feedsmithParse(value));
  } catch (err) {
    if (err instanceof DetectError) throw new FeedParseError('not a feed: no RSS, Atom, RDF or JSON Feed root element found');
    if (err instanceof MalformedError) throw new FeedParseError(`not a feed: the XML cannot be read (${(err.cause as Error | undefined)?.message ?? err.message})`);
    // feedsmith recognised the format but found nothing in it (e.g. "<rss><channel/></rss>"): a valid, empty feed.
    if (err instanceof ParseError) raw = emptyFeed(value);
    else throw new FeedParseError(`not a feed: ${(err as Error).message}`);
  }
  return normaliseFeed(raw, opts.url, recovered);
}

function emptyFeed(value: unknown): RawFeed {
  const format: RawFeed['format'] =
    typeof value !== 'string' ? 'json' : /<(?:\w+:)?RDF[\s>]/.test(value) ? 'rdf' : /<(?:\w+:)?feed[\s>]/.test(value) ? 'atom' : 'rss';
  return { format, title: null, siteUrl: null, description: null, iconUrl: null, ttl: null, authors: [], base: null, entries: [] };
}

/** The first element (after the XML declaration, comments, PIs and DOCTYPE) is <html>. */
function looksLikeHtmlPage(text: string): boolean {
  const head = text.slice(0, 4096);
  const prolog = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>\[]*(?:\[[\s\S]*?\])?\s*>)*/i.exec(head)?.[0].length ?? 0;
  return /^<html[\s>]/i.test(head.slice(prolog));
}
