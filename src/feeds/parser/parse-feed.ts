// The parse step of the feed pipeline: bytes (as fetched) -> ParsedFeed (normalised, sanitized).
//   decode charset -> refuse hostile XML -> (repair if not well-formed) -> parse with the library
//   -> map to RawFeed -> normalise (ids, URLs, dates, text, sanitized HTML).
//
// Library: feedsmith 3.0.1, chosen by measurement on ../shared/corpus/feeds (2,180 files; script
// bench/feed-parser-candidates.ts; each library given the same decoded text):
//   library                     no throw  with items  conformance sample*  real-world raw MB/s
//   feedsmith 3.0.1             1803      1112        312/442 (70.6%)      16.1 (11.6 under load)
//   @rowanmanning/feed-parser   2091      1245        310/442 (70.1%)      12.6 (2.4 under load)
//   rss-parser 3.13.0           1757      1199         58/442 (13.1%)      13.0 (9.0 under load)
//   @extractus/feed-extractor   1621      1237         51/442 (11.5%)       8.6 (5.3 under load)
//   * Expect: lines of the form feed['title'] / entries[0]['title'|'link'|'id'] == '...'.
// feedsmith is the fastest, ties for the best sample score, is the only candidate that reads JSON
// Feed as well as RSS 0.9x/1.0/2.0 and Atom 0.3/1.0, and exposes the namespaces we need (content,
// dc, media, itunes, xml:base) with TypeScript types. Its "throws" are mostly empty feeds (handled
// below as a valid feed with no entries) and items containing only unknown elements; its XML layer
// (fast-xml-parser) does not validate, so ill-formed input is detected and repaired here first.
import { DetectError, MalformedError, ParseError, parseFeed as feedsmithParse } from 'feedsmith';
import { XMLValidator } from 'fast-xml-parser';
import type { ParsedFeed } from '../../model/parsed-feed.ts';
import { decodeFeedBody } from '../encoding/decode-feed-body.ts';
import { FeedParseError } from './feed-parse-error.ts';
import { mapFeedsmith } from './map-feedsmith.ts';
import { normaliseFeed } from './normalise-feed.ts';
import type { RawFeed } from './raw-feed.ts';
import { refuseHostileXml } from './refuse-hostile-xml.ts';
import { decodeBase64Content } from './decode-base64-content.ts';
import { promoteLegacyContent } from './promote-legacy-content.ts';
import { repairXml } from './repair-xml.ts';
import { stripLeadingJunk } from './strip-leading-junk.ts';
import { exceedsTagDepth } from '../../text/tag-depth.ts';
import { capPersonFields } from './cap-person-fields.ts';

export { FeedParseError } from './feed-parse-error.ts';

/** No feed nests this deep; deeper ill-formed input would make the repair pass quadratic. */
const MAX_XML_DEPTH = 10_000;

export interface ParseFeedOptions {
  /** The feed's URL: the base for relative links when the document has no xml:base. */
  url: string;
  /** The HTTP Content-Type header, for its charset. */
  contentType?: string | null;
  /**
   * When the feed was fetched (Unix seconds). Entry dates more than a day after it (a wrong time
   * zone or a scheduled post) are clamped to it, so a future date cannot pin an entry to the top.
   */
  crawlTime?: number;
}

export function parseFeed(body: Buffer | Uint8Array | string, opts: ParseFeedOptions): ParsedFeed {
  const decoded = decodeFeedBody(body, opts.contentType);
  const trimmed = decoded.text.replace(/^[\s\u0000\ufeff]+/, '');
  if (!trimmed) throw new FeedParseError('empty document');
  const { text, stripped } = stripLeadingJunk(trimmed);

  let value: unknown = text;
  let recovered = decoded.mismatch || stripped;
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
      if (exceedsTagDepth(xml, MAX_XML_DEPTH))
        throw new FeedParseError(`not a feed: elements nested more than ${MAX_XML_DEPTH} levels deep`);
      xml = repairXml(xml);
      recovered = true;
    }
    value = decodeBase64Content(promoteLegacyContent(capPersonFields(xml)));
  }

  let raw: RawFeed;
  try {
    raw = mapFeedsmith(feedsmithParse(value));
  } catch (err) {
    if (err instanceof DetectError)
      throw new FeedParseError('not a feed: no RSS, Atom, RDF or JSON Feed root element found');
    if (err instanceof MalformedError)
      throw new FeedParseError(
        `not a feed: the XML cannot be read (${(err.cause as Error | undefined)?.message ?? err.message})`,
      );
    // feedsmith recognised the format but found nothing in it (e.g. "<rss><channel/></rss>"): a valid, empty feed.
    if (err instanceof ParseError) raw = emptyFeed(value);
    else throw new FeedParseError(`not a feed: ${(err as Error).message}`);
  }
  return normaliseFeed(raw, opts.url, recovered, opts.crawlTime ?? null);
}

function emptyFeed(value: unknown): RawFeed {
  const format: RawFeed['format'] =
    typeof value !== 'string'
      ? 'json'
      : /<(?:\w+:)?RDF[\s>]/.test(value)
        ? 'rdf'
        : /<(?:\w+:)?feed[\s>]/.test(value)
          ? 'atom'
          : 'rss';
  return {
    format,
    title: null,
    siteUrl: null,
    description: null,
    iconUrl: null,
    ttl: null,
    authors: [],
    base: null,
    entries: [],
  };
}

/** The first element (after the XML declaration, comments, PIs and DOCTYPE) is <html>. */
function looksLikeHtmlPage(text: string): boolean {
  const head = text.slice(0, 4096);
  const prolog =
    /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>\[]*(?:\[[\s\S]*?\])?\s*>)*/i.exec(head)?.[0].length ?? 0;
  return /^<html[\s>]/i.test(head.slice(prolog));
}
