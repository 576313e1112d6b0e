// RSS 2.0 items from the early 2000s carry their full content as an inline XHTML <body> (or
// <xhtml:body>) or as Userland's escaped <fullitem>. feedsmith does not read those, so before
// parsing they are rewritten as the <content:encoded> they stand for. Only RSS documents that
// contain one of these elements pay for the rewrite.
const LEGACY_CONTENT = /<((?:[\w.-]+:)?body|fullitem)\b([^>]*)>([\s\S]*?)<\/\1\s*>/g;
const HAS_LEGACY = /<(?:[\w.-]+:)?body[\s>]|<fullitem[\s>]/;

export function promoteLegacyContent(xml: string): string {
  if (!HAS_LEGACY.test(xml) || !/<rss[\s>]/.test(xml)) return xml;
  return xml.replace(LEGACY_CONTENT, (_whole, name: string, _attrs: string, inner: string) => {
    if (name === 'fullitem') return `<content:encoded>${inner}</content:encoded>`;
    // <body>, with or without the XHTML namespace (feedparser reads both the same way).
    return `<content:encoded><![CDATA[${inner.replace(/]]>/g, ']]]]><![CDATA[>')}]]></content:encoded>`;
  });
}
