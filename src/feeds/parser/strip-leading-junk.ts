// Servers often print something before the feed: PHP notices ("<br />\n<b>Warning</b>: …"), a stray
// line of text, a second BOM. Like feedparser and browsers' feed readers, skip to where the XML
// starts: the XML declaration if it is not first, else the first feed root element.
const XML_DECL = /<\?xml[\s?]/;
const FEED_ROOT = /<(?:rss|feed|rdf:RDF|RDF)[\s>]/;
const SEARCH_LIMIT = 65536;

/** The text from where the feed begins, and whether anything was skipped. */
export function stripLeadingJunk(text: string): { text: string; stripped: boolean } {
  if (text.startsWith('<?xml') || text.startsWith('{')) return { text, stripped: false };
  // An HTML page that merely shows a feed sample is not a feed with junk in front.
  if (/^<(?:!doctype\s+html|html)[\s>]/i.test(text)) return { text, stripped: false };
  const head = text.slice(0, SEARCH_LIMIT);
  const decl = head.search(XML_DECL);
  if (decl > 0) return { text: text.slice(decl), stripped: true };
  if (text.startsWith('<')) return { text, stripped: false };
  const root = head.search(FEED_ROOT);
  if (root > 0) return { text: text.slice(root), stripped: true };
  return { text, stripped: false };
}
