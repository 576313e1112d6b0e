// RSS 2.0 items from the early 2000s carry their full content as an inline XHTML <body> (or
// <xhtml:body>) or as Userland's escaped <fullitem>. feedsmith does not read those, so before
// parsing they are rewritten as the <content:encoded> they stand for. Only RSS documents that
// contain one of these elements pay for the rewrite.
const LEGACY_OPEN = /<((?:[\w.-]+:)?body|fullitem)\b[^>]*>/g;
const HAS_LEGACY = /<(?:[\w.-]+:)?body[\s>]|<fullitem[\s>]/;

export function promoteLegacyContent(xml: string): string {
  if (!HAS_LEGACY.test(xml) || !/<rss[\s>]/.test(xml)) return xml;
  // A forward-only scan (not one regex with a lazy body): unclosed openings cannot make it quadratic.
  const out: string[] = [];
  const unclosed = new Set<string>();
  let copied = 0;
  LEGACY_OPEN.lastIndex = 0;
  for (let m = LEGACY_OPEN.exec(xml); m; m = LEGACY_OPEN.exec(xml)) {
    const name = m[1]!;
    if (unclosed.has(name)) continue;
    const closeAt = xml.indexOf(`</${name}>`, LEGACY_OPEN.lastIndex);
    if (closeAt === -1) {
      unclosed.add(name); // no closing tag anywhere after this one, so none for later openings either
      continue;
    }
    const inner = xml.slice(LEGACY_OPEN.lastIndex, closeAt);
    out.push(xml.slice(copied, m.index));
    // <fullitem> holds escaped HTML; <body>, with or without the XHTML namespace, inline markup.
    out.push(
      name === 'fullitem'
        ? `<content:encoded>${inner}</content:encoded>`
        : `<content:encoded><![CDATA[${inner.replace(/]]>/g, ']]]]><![CDATA[>')}]]></content:encoded>`,
    );
    copied = closeAt + name.length + 3;
    LEGACY_OPEN.lastIndex = copied;
  }
  out.push(xml.slice(copied));
  return out.join('');
}
